#include "runner/cli/command_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/yaml_context.hpp"
#include "runner/tasks/registry.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {
namespace {

std::string allowed_text(const tasks::ParamSpec& param)
{
    if (param.type == tasks::ParamType::choice) return fmt::format("{}", fmt::join(param.choices, " | "));
    const auto range = param.range.text();
    return range.empty() ? "any" : range;
}

/** Rows of cells printed as left-aligned columns two spaces apart; the last column is not padded. */
void print_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows)
{
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        widths.resize(std::max(widths.size(), row.size()));
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += i + 1 < row.size() ? fmt::format("{:<{}}  ", row[i], widths[i]) : row[i];
        }
        out << line << "\n";
    }
}

void print_table(std::ostream& out, const tasks::TaskKindEntry& kind)
{
    out << kind.name << ": " << kind.summary << "\n";
    if (kind.params->open) {
        out << "\n" << kind.name << " takes any parameter names (params: and sweep axes) and checks no values.\n";
        return;
    }
    std::vector<std::vector<std::string>> rows = {{"name", "type", "default", "allowed", "doc"}};
    for (const auto& param : kind.params->params) {
        rows.push_back({param.name, tasks::param_type_name(param.type), param.default_text, allowed_text(param), param.doc});
    }
    out << "\n";
    print_columns(out, rows);
}

}  // namespace

void KindsCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()("kind", po::value<std::string>(&kind_), "a task kind: print the parameters it takes");
    positional.add("kind", 1);
}

CommandDoc KindsCommand::doc() const
{
    return {
        .description =
            "Lists the task kinds this shardrun can run (the job file's `task:`), each with one line on what it "
            "does; with a NAME, prints the parameters that kind takes (`params:` and sweep axes): each one's type, "
            "default, allowed values and meaning, from the same table the job-file check uses. A program that "
            "registers kinds of its own lists them too. It needs no job file and no `mpirun`.\n\n"
            "Reach for it while writing a job file, to find the kind for a task and the exact names and ranges of "
            "its parameters.",
        .example = "shardrun kinds heat2d",
        .exit_codes = {
            {exit_ok, "the list or the kind's parameters were printed"},
            {exit_bad_input, "usage error, or NAME is not a task kind (one line with the closest name and the kinds "
                             "there are)"},
        },
    };
}

void KindsCommand::check(const po::variables_map& /*values*/)
{
    if (kind_.empty() || tasks::find_task_kind(kind_)) return;
    const auto names = tasks::task_kind_names();
    const auto suggestion = job::closest_name(kind_, names);
    SHARDRUN_THROW(UsageError, fmt::format("kinds: '{}' is not a task kind{}; the kinds: {}", kind_,
                                           suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion),
                                           fmt::join(names, ", ")));
}

int KindsCommand::run()
{
    if (!kind_.empty()) {
        print_table(std::cout, *tasks::find_task_kind(kind_));
        return exit_ok;
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& kind : tasks::task_kinds()) rows.push_back({kind.name, kind.summary});
    print_columns(std::cout, rows);
    std::cout << "\n'shardrun kinds NAME' prints the parameters a kind takes.\n";
    return exit_ok;
}

}  // namespace shardrun::cli
