// exec: against the parameters: every {name} in its argv and env.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "runner/job/argv_template.hpp"
#include "runner/job/job_checks.hpp"

namespace shardrun::job {
namespace {

// `per_task`: the names a worker cannot use, as it expands argv and env once per rank.
void check_template(const std::string& text, const YAML::Mark& mark, const YamlContext& context, const std::string& path,
                    const std::set<std::string>& known, const std::set<std::string>& per_task)
{
    try {
        for (const auto& name : placeholders_in(text)) {
            if (known.count(name) == 0) {
                // A misspelled parameter ({alpah}) is named as every other misspelled name is.
                const auto suggestion = closest_name(name, std::vector<std::string>(known.begin(), known.end()));
                context.fail(mark, path,
                             fmt::format("{{{}}} names no parameter{}; known: {} (write {{{{ and }}}} for literal braces)",
                                         name, suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion),
                                         fmt::join(known, ", ")));
            }
            if (per_task.count(name) != 0) {
                context.fail(mark, path,
                             fmt::format("{{{}}} changes from task to task; with exec.mode: worker argv and env are "
                                         "expanded once per rank, and each task's values come on stdin",
                                         name));
            }
        }
    } catch (const std::invalid_argument& error) {
        context.fail(mark, path, fmt::format("{} (write {{{{ for a literal brace)", error.what()));
    }
}

}  // namespace

void check_exec_templates(const JobRead& job, const YamlContext& context)
{
    const auto& spec = job.spec;
    if (spec.task != "exec") return;
    std::set<std::string> known(builtin_placeholders().begin(), builtin_placeholders().end());
    auto names = spec.sweep.names();
    for (const auto& entry : spec.params.entries()) names.push_back(entry.first);
    const auto& builtins = builtin_placeholders();
    for (const auto& name : names) {
        // `device` picks the task's device (runner/run/setup/device_choice.hpp), and {device} then names it.
        const bool device = name == "device";
        if (!device && std::find(builtins.begin(), builtins.end(), name) != builtins.end()) {
            context.fail(job.marks.value("exec"), "exec",
                         fmt::format("parameter '{}' has the name of a built-in placeholder; rename it (built-ins: {})", name,
                                     fmt::join(builtin_placeholders(), ", ")));
        }
        known.insert(name);
    }
    std::set<std::string> per_task;
    if (spec.exec.mode == ExecSpec::Mode::worker) {
        per_task.insert(per_task_placeholders().begin(), per_task_placeholders().end());
        for (const auto& name : spec.sweep.names()) per_task.insert(name);
    }
    for (size_t i = 0; i < spec.exec.argv.size(); ++i) {
        const auto path = fmt::format("exec.argv[{}]", i);
        check_template(spec.exec.argv[i], job.marks.value(path), context, path, known, per_task);
    }
    for (const auto& entry : spec.exec.env) {
        const auto path = "exec.env." + entry.first;
        check_template(entry.second, job.marks.value(path), context, path, known, per_task);
    }
}

}  // namespace shardrun::job
