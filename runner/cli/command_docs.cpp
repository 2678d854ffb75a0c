#include "runner/cli/command_docs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iostream>

#include "runner/cli/cli_pages.hpp"
#include "runner/cli/commands.hpp"
#include "runner/cli/job_file_page.hpp"
#include "runner/cli/kinds_page.hpp"
#include "runner/errors.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {
namespace {

constexpr std::array pages = {"job-file", "kinds", "cli", "man", "man-include", "commands"};

}  // namespace

void DocsCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("page", po::value<std::string>(&page_),
         "job-file: the job-file reference; kinds: the task kinds' parameters; cli: the command index, or "
         "with COMMAND its page; man: the text help2man makes shardrun(1) of, or with COMMAND "
         "shardrun-COMMAND(1); man-include: its EXIT STATUS and SEE ALSO; commands: every command's name, one a line")
        ("command", po::value<std::string>(&command_), "a command, for cli, man and man-include");
    positional.add("page", 1).add("command", 1);
}

CommandDoc DocsCommand::doc() const
{
    return {
        .description =
            "Prints a reference page as Markdown, written from the tables this program itself runs on: `job-file` "
            "(every job-file field), `kinds` (every task kind's parameters), `cli` (the command index, or with a "
            "COMMAND its page); or `man` (the text help2man makes shardrun(1) or shardrun-COMMAND(1) of), "
            "`man-include` (those pages' EXIT STATUS and SEE ALSO) and `commands` (every command's name). It reads "
            "no file, starts no MPI, and `shardrun --help` does not list it.\n\n"
            "The docs build runs it (`scripts/docs-reference`, and the man pages at build time); reach for it to "
            "read a reference page in a terminal, or to see what the site will say after changing a table.",
        .example = "shardrun docs cli status",
        .exit_codes = {
            {exit_ok, "the page was printed"},
            {exit_bad_input, "usage error: no page named, a page that is not one, or a COMMAND that is not one (one "
                             "line naming what there is)"},
        },
    };
}

void DocsCommand::check(const po::variables_map& /*values*/)
{
    if (page_.empty()) SHARDRUN_THROW(UsageError, fmt::format("docs: name a page; the pages: {}", fmt::join(pages, ", ")));
    if (std::find(pages.begin(), pages.end(), page_) == pages.end()) {
        SHARDRUN_THROW(UsageError, fmt::format("docs: '{}' is not a page; the pages: {}", page_, fmt::join(pages, ", ")));
    }
    if (command_.empty()) return;
    if (page_ != "cli" && page_ != "man" && page_ != "man-include") {
        SHARDRUN_THROW(UsageError, fmt::format("docs: {} takes no command; only cli, man and man-include do", page_));
    }
    if (!make_command(command_)) {
        SHARDRUN_THROW(UsageError, fmt::format("docs: '{}' is not a command (see shardrun docs commands)", command_));
    }
}

int DocsCommand::run()
{
    const auto command = command_.empty() ? nullptr : make_command(command_);
    if (page_ == "job-file") std::cout << job_file_page();
    if (page_ == "kinds") std::cout << kinds_page();
    if (page_ == "cli") std::cout << (command ? command_page(*command) : cli_index_page());
    if (page_ == "man") std::cout << man_help_text(command.get());
    if (page_ == "man-include") std::cout << man_include_text(command.get());
    if (page_ == "commands") {
        for (const auto& factory : command_factories()) std::cout << factory()->name() << "\n";
    }
    return exit_ok;
}

}  // namespace shardrun::cli
