#pragma once

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/positional_options.hpp>
#include <boost/program_options/variables_map.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::cli {

/** One exit code of a command and what it means for that command. */
struct CommandExitCode {
    int code;
    std::string_view meaning;
};

/**
 * What `--help`, the command's reference page (docs/reference/cli/<name>.md) and its man page
 * shardrun-<name>(1) say beyond the options: written once, beside the command's option table,
 * so that the three cannot say different things (issue 39, points 3 and 6).
 */
struct CommandDoc {
    /**
     * What the command does and when a user reaches for it: paragraphs separated by a blank line,
     * each one line of text; `code` in backticks is the only markup (no links, lists or '<'), as
     * --help and the man page show it as plain text.
     */
    std::string_view description;
    /** One command line a user can copy, e.g. "shardrun status results/heat.h5". */
    std::string_view example;
    /** Every code the command exits with, in ascending order, and what each means for this command. */
    std::vector<CommandExitCode> exit_codes;
};

/**
 * One subcommand of `shardrun`: setup() parses and validates without touching files or
 * MPI; run() does the work and returns the process exit code.
 */
class Command {
public:
    virtual ~Command() = default;

    virtual std::string_view name() const noexcept = 0;
    /** One line for `shardrun --help`. */
    virtual std::string_view synopsis() const noexcept = 0;
    /** Arguments shown after the subcommand name in its usage line, e.g. "JOB.yaml". */
    virtual std::string_view arguments() const noexcept { return ""; }
    /** Its description, example and exit codes; kept in command_<name>.cpp next to add_options(). */
    virtual CommandDoc doc() const = 0;
    /** False for a command `shardrun --help` does not list (`docs`, which the docs build runs). */
    virtual bool listed() const noexcept { return true; }

    /** The reference page of this command, as messages name it: "docs/reference/cli/run.md". */
    std::string page() const;

    /**
     * Parses `args` (what follows the subcommand name).
     * @return false when --help was given and printed (nothing more to do)
     * @throws UsageError on unknown options or invalid values
     */
    bool setup(const std::vector<std::string>& args);

    virtual int run() = 0;

    /**
     * The subcommand's usage line, synopsis, description, example, option table and exit codes
     * and, last, the line naming its page().
     */
    std::string help() const;

    /** Every option the command takes, --help included, with Boost's help texts. */
    boost::program_options::options_description options() const;

protected:
    virtual void add_options(boost::program_options::options_description& options,
                             boost::program_options::positional_options_description& positional) = 0;
    /** Checks parsed values; opens no file and starts no MPI. */
    virtual void check(const boost::program_options::variables_map& /*values*/) {}
};

}  // namespace shardrun::cli
