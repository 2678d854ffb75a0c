// The generated reference pages of the task kinds and the commands (issue 39, points 2, 3, 6):
// the kinds page against each kind's parameter check, the command pages against the commands
// main() dispatches, each command's description, example and exit codes (doc()) in --help, its
// page and its man page, --help's last line, and the text the man pages are made from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "runner/cli/cli_pages.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/help_text.hpp"
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
    }
}

/** The page's "## " headings ("Exit codes"), in the order a reader meets them. */
std::vector<std::string> headings(const std::string& page)
{
    std::vector<std::string> found;
    for (auto at = page.find("\n## "); at != std::string::npos; at = page.find("\n## ", at + 1)) {
        found.push_back(page.substr(at + 4, page.find('\n', at + 1) - at - 4));
    }
    return found;
}

std::string lower(std::string text)
{
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// Issue 39, points 3 and 6: each command says what it does, when to reach for it, one example and
// every code it exits with, in one place (doc()) that --help, its page and its man page all show.
TEST(CliPages, EveryCommandHasADescriptionAnExampleAndItsExitCodes)
{
    for (const auto& factory : command_factories()) {
        const auto command = factory();
        const std::string name(command->name());

        const auto doc = command->doc();

        const std::string description(doc.description), example(doc.example);
        EXPECT_GE(paragraphs(description).size(), 2u) << name << ": a description is what it does, then when a user reaches for it";
        EXPECT_TRUE(contains(lower(description), "reach for it")) << name << ": say when a user reaches for it";
        // Plain text in --help and man: no Markdown but backticks, no line breaks inside a paragraph.
        for (const auto* markup : {"](", "<", "|", "**", "\n- "}) EXPECT_FALSE(contains(description, markup)) << name << ": " << markup;
        EXPECT_FALSE(contains(description, "\n\n\n")) << name;
        EXPECT_TRUE(contains(example + " ", "shardrun " + name + " ")) << name << ": " << example;
        EXPECT_FALSE(contains(example, "\n")) << name << ": one command line";
        ASSERT_FALSE(doc.exit_codes.empty()) << name << ": no exit codes";
        EXPECT_EQ(doc.exit_codes.front().code, exit_ok) << name;
        for (std::size_t i = 0; i < doc.exit_codes.size(); ++i) {
            EXPECT_FALSE(doc.exit_codes[i].meaning.empty()) << name << " exit " << doc.exit_codes[i].code;
            if (i > 0) EXPECT_LT(doc.exit_codes[i - 1].code, doc.exit_codes[i].code) << name << ": ascending, once each";
        }
        // Every command refuses bad usage with 2 (main() maps UsageError so), and must say so.
        const auto usage = std::find_if(doc.exit_codes.begin(), doc.exit_codes.end(),
                                        [](const CommandExitCode& each) { return each.code == exit_bad_input; });
        EXPECT_NE(usage, doc.exit_codes.end()) << name << ": exit 2 not listed";
    }
}

TEST(CliPages, PageHelpAndManSayTheSameDescriptionExampleAndExitCodes)
{
    for (const auto& factory : command_factories()) {
        const auto command = factory();
        const std::string name(command->name());
        const auto doc = command->doc();

        const auto page = command_page(*command);
        const auto help = command->help();
        const auto man = man_help_text(command.get());
        const auto include = man_include_text(command.get());

        EXPECT_EQ(headings(page), (std::vector<std::string>{"Synopsis", "Description", "Options", "Exit codes", "Example"}))
            << page;
        EXPECT_TRUE(contains(page, "\n## Example\n\n```bash\n" + std::string(doc.example) + "\n```\n")) << page;
        EXPECT_TRUE(contains(help, "\nExample:\n  " + std::string(doc.example) + "\n")) << help;
        EXPECT_TRUE(contains(man, "\nExamples:\n  $ " + std::string(doc.example) + "\n")) << man;
        for (const auto& paragraph : paragraphs(doc.description)) {
            EXPECT_TRUE(contains(page, "\n## Description\n") && contains(page, "\n" + paragraph + "\n")) << name;
            EXPECT_TRUE(contains(man, "\n" + plain_text(paragraph) + "\n")) << name;
            // --help wraps it: compare the words.
            std::string words;
            for (const char c : help) words += c == '\n' ? ' ' : c;
            for (auto at = words.find("  "); at != std::string::npos; at = words.find("  ")) words.erase(at, 1);
            EXPECT_TRUE(contains(words, plain_text(paragraph))) << name << ":\n" << help;
        }
        EXPECT_LT(help.find("\nExample:\n"), help.find("\nOptions of")) << help;
        EXPECT_LT(help.find("\nOptions of"), help.find("\nExit codes:\n")) << help;
        for (const auto& each : doc.exit_codes) {
            const auto code = std::to_string(each.code);
            EXPECT_TRUE(contains(page, "| " + code + " | ")) << name << " exit " << code;
            EXPECT_TRUE(contains(help, "\n  " + code + "  ")) << name << " exit " << code << "\n" << help;
            EXPECT_TRUE(contains(include, ".TP\n" + code + "\n")) << name << " exit " << code;
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
