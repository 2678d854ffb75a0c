#pragma once

#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/**
 * The command-line reference, written from the commands themselves (command_factories()): their
 * synopsis, arguments, Boost.Program_options descriptions and doc() (description, example, exit
 * codes), so that the pages, the man pages and `--help` say the same thing.
 */

/** docs/reference/cli/index.md: every command with its synopsis and a link to its page, and the common exit codes. */
std::string cli_index_page();

/** docs/reference/cli/<name>.md: synopsis, description, every option with its help text, exit codes, example. */
std::string command_page(const Command& command);

/**
 * The text help2man turns into shardrun-<name>(1) (or shardrun(1) for nullptr): Usage:, the
 * description as plain text, Options: as --help prints them, and Examples:.
 */
std::string man_help_text(const Command* command);

/** What help2man --include adds to that page: [EXIT STATUS] and [SEE ALSO], in roff. */
std::string man_include_text(const Command* command);

}  // namespace shardrun::cli
