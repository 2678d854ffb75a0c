// The generated reference pages (issue 39, points 2 and 3) against what the program accepts:
// the job-file page against the parser's own keys per section (read from its "unknown key ...;
// allowed: ..." line, so a key a reader accepts outside the table is caught too), the kinds page
// against each kind's parameter check, and the command pages against the commands main() dispatches.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runner/cli/cli_pages.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/job_file_page.hpp"
#include "runner/cli/kinds_page.hpp"
#include "runner/job/job_fields.hpp"
#include "runner/tasks/registry.hpp"
#include "tests/runner/cli/markdown_rows.hpp"
#include "tests/runner/job/job_file_error.hpp"

namespace shardrun::cli {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/** "`schedule` {#schedule}" -> "schedule", "Top level {#top-level}" -> "": the mapping a heading is about. */
std::string section_of(const std::string& heading)
{
    if (heading.starts_with("Top level")) return "";
    const auto close = heading.find('`', 1);
    return heading.starts_with("`") && close != std::string::npos ? heading.substr(1, close - 1) : "?" + heading;
}

/** "`schedule.kind`" -> "kind". */
std::string key_of(const std::string& cell)
{
    const auto path = cell.substr(1, cell.size() - 2);
    return path.substr(path.find('.') == std::string::npos ? 0 : path.find('.') + 1);
}

/** section -> the keys the job-file page lists under it. */
std::map<std::string, std::set<std::string>> page_keys()
{
    std::map<std::string, std::set<std::string>> keys;
    for (const auto& row : page_rows(job_file_page())) keys[section_of(row.heading)].insert(key_of(row.cells.at(0)));
    return keys;
}

/** A job file whose `section` mapping holds `key` (a null value) and what that section needs besides. */
std::string probe_job(const std::string& section, const std::string& key)
{
    const bool exec = section == "exec";
    std::string text = exec ? "task: exec\n" : "task: noop\n";
    if (section.empty()) return key == "task" ? text : text + key + ": ~\n";
    const auto needed = exec && key != "argv" ? "argv: [true], " : "";
    return text + section + ": {" + needed + key + ": ~}\n";
}

/** The keys the parser accepts in `section`, as its unknown-key line lists them ("; allowed: a, b"). */
std::set<std::string> parser_keys(const std::string& section)
{
    const auto message = job::job_file_error(probe_job(section, "zz_no_such_key"), tasks::task_kind_names());
    const auto path = section.empty() ? std::string("zz_no_such_key") : section + ".zz_no_such_key";
    EXPECT_TRUE(contains(message, " " + path + ": unknown key")) << "the probe of '" << section << "' met: " << message;
    std::set<std::string> keys;
    const auto allowed = message.find("; allowed: ");
    if (allowed == std::string::npos) return keys;
    std::istringstream list(message.substr(allowed + 11));
    for (std::string key; std::getline(list, key, ',');) keys.insert(key.substr(key.find_first_not_of(' ')));
    return keys;
}

TEST(JobFilePage, ListsExactlyTheKeysTheParserAcceptsInEachSection)
{
    const auto listed = page_keys();

    ASSERT_TRUE(listed.count("")) << "no top-level table";
    for (const auto& [section, keys] : listed) {
        EXPECT_EQ(parser_keys(section), keys) << "section '" << section << "': the parser's keys (left) and the page's";
        for (const auto& key : keys) {
            const auto message = job::job_file_error(probe_job(section, key), tasks::task_kind_names());
            EXPECT_FALSE(contains(message, ": unknown key")) << section << "." << key << ": " << message;
        }
    }
    // Every mapping the parser opens (a top-level key it checks the keys of) has its section on the page.
    for (const auto& field : job::job_fields) {
        if (!field.section.empty()) EXPECT_TRUE(listed.count(std::string(field.section))) << field.section;
    }
}

TEST(JobFilePage, EveryRowHasATypeADefaultAndADescription)
{
    const auto rows = page_rows(job_file_page());

    ASSERT_EQ(rows.size(), std::size(job::job_fields));
    for (const auto& row : rows) {
        ASSERT_EQ(row.cells.size(), 5u) << row.cells.at(0);
        EXPECT_FALSE(row.cells[1].empty()) << row.cells[0] << ": no type";
        EXPECT_FALSE(row.cells[2].empty()) << row.cells[0] << ": no default";
        EXPECT_FALSE(row.cells[4].empty()) << row.cells[0] << ": no description";
    }
}

TEST(JobFilePage, CellsKeepTheirBarsAndAngleBrackets)
{
    const auto page = job_file_page();

    // output.path's default names <name>, which a Markdown page would drop as an HTML tag.
    EXPECT_TRUE(contains(page, "| `output.path` | text | results/&lt;name&gt;.h5 |")) << page;
    EXPECT_TRUE(contains(page, "static \\| block \\| cyclic \\| dynamic")) << page;
}

TEST(KindsPage, EveryKindHasASectionWithEveryParameterItChecks)
{
    std::map<std::string, std::vector<std::vector<std::string>>> rows;
    for (const auto& row : page_rows(kinds_page())) {
        if (!row.heading.empty()) rows[section_of(row.heading)].push_back(row.cells);
    }
    const auto page = kinds_page();

    for (const auto& kind : tasks::task_kinds()) {
        EXPECT_TRUE(contains(page, "\n## `" + kind.name + "` {#" + kind.name + "}\n")) << kind.name;
        EXPECT_FALSE(kind.summary.empty()) << kind.name;
        std::set<std::string> listed;
        for (const auto& cells : rows[kind.name]) {
            ASSERT_EQ(cells.size(), 5u) << kind.name;
            const auto param = cells[0].substr(1, cells[0].size() - 2);
            listed.insert(param);
            EXPECT_FALSE(cells[4].empty()) << kind.name << "." << param << ": no description";
            // What the page lists, the job's parameter check (run/setup/param_checks.cpp) accepts.
            EXPECT_EQ(tasks::unknown_param_problem(*kind.params, param), "") << kind.name << "." << param;
        }
        const auto names = kind.params->names();
        EXPECT_EQ(listed, std::set<std::string>(names.begin(), names.end())) << kind.name;
        if (kind.params->open) EXPECT_TRUE(contains(page, "`" + kind.name + "` takes any parameter names")) << kind.name;
    }
    for (const auto& [section, cells] : rows) EXPECT_NE(tasks::find_task_kind(section), nullptr) << section;
}

TEST(CliPages, EveryCommandMainDispatchesHasAPageWithEveryOption)
{
    const auto index = cli_index_page();

    for (const auto& factory : command_factories()) {
        const auto command = factory();
        const std::string name(command->name());
        ASSERT_NE(make_command(name), nullptr) << name;
        EXPECT_TRUE(contains(index, "[`" + name + "`](" + name + ".md)")) << name;
        const auto page = command_page(*command);
        EXPECT_TRUE(page.starts_with("# shardrun " + name + "\n")) << page;
        EXPECT_TRUE(contains(page, "shardrun " + name + " [options]")) << page;
        for (const auto& option : command->options().options()) {
            const auto row = page.find("--" + option->long_name() + "` |");
            ASSERT_NE(row, std::string::npos) << name << " --" << option->long_name() << " has no row:\n" << page;
            const auto cells = markdown_row_cells(page.substr(page.rfind('\n', row) + 1, page.find('\n', row) - page.rfind('\n', row) - 1));
            ASSERT_EQ(cells.size(), 3u) << name << " --" << option->long_name();
            EXPECT_FALSE(cells[2].empty()) << name << " --" << option->long_name() << ": no help text";
        }
        for (const auto& [code, meaning] : command->exit_codes()) {
            EXPECT_TRUE(contains(page, "| " + std::to_string(code) + " | ")) << name << " exit " << code;
            EXPECT_FALSE(meaning.empty()) << name << " exit " << code;
        }
    }
}

TEST(CliPages, HelpEndsWithTheCommandsPage)
{
    for (const auto& factory : command_factories()) {
        const auto command = factory();

        const auto help = command->help();

        EXPECT_TRUE(help.ends_with("\nReference: docs/reference/cli/" + std::string(command->name()) + ".md\n")) << help;
    }
}

TEST(CliPages, ManTextHasUsageOptionsAndExitStatus)
{
    const auto status = make_command("status");

    const auto text = man_help_text(status.get());
    const auto include = man_include_text(status.get());
    const auto main_text = man_help_text(nullptr);

    EXPECT_TRUE(text.starts_with("Usage: shardrun status [options] OUTPUT.h5\n\n")) << text;
    EXPECT_TRUE(contains(text, "\nOptions:\n")) << text;
    EXPECT_TRUE(contains(text, "\n  --json ")) << text;
    EXPECT_TRUE(include.starts_with("[EXIT STATUS]\n.TP\n0\ncomplete: every task ok\n")) << include;
    EXPECT_TRUE(contains(include, "(run \\-\\-resume retries them)")) << include;
    EXPECT_TRUE(contains(include, "[SEE ALSO]\nshardrun(1); the same page on the docs site: docs/reference/cli/status.md")) << include;
    EXPECT_TRUE(contains(main_text, "\n  status     show done / failed / pending")) << main_text;
    EXPECT_FALSE(contains(main_text, "\n  docs ")) << main_text;
}

}  // namespace
}  // namespace shardrun::cli
