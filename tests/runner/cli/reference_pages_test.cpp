// The generated reference pages of the task kinds and the commands (issue 39, points 2, 3, 6):
// the kinds page against each kind's parameter check, the command pages against the commands
// main() dispatches, --help's last line, and the text the man pages are made from.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner/cli/cli_pages.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/kinds_page.hpp"
#include "runner/tasks/registry.hpp"
#include "tests/runner/cli/markdown_rows.hpp"

namespace shardrun::cli {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/** "`gemm` {#gemm}" -> "gemm": the kind a heading is about. */
std::string kind_of(const std::string& heading)
{
    const auto close = heading.find('`', 1);
    return heading.starts_with("`") && close != std::string::npos ? heading.substr(1, close - 1) : "?" + heading;
}

TEST(KindsPage, EveryKindHasASectionWithEveryParameterItChecks)
{
    std::map<std::string, std::vector<std::vector<std::string>>> rows;
    for (const auto& row : page_rows(kinds_page())) {
        if (!row.heading.empty()) rows[kind_of(row.heading)].push_back(row.cells);
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
        const auto options = command->options();
        for (const auto& option : options.options()) {
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
