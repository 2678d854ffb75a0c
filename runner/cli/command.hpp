#pragma once

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/positional_options.hpp>
#include <boost/program_options/variables_map.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::cli {

/** One exit code a command has of its own, for its reference page and man page. */
struct CommandExitCode {
    int code;
    std::string_view meaning;
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
    /**
     * Paragraphs for the reference page and man page beyond the synopsis (blank-line separated,
     * Markdown); empty: the synopsis says it all.
     */
    virtual std::string_view description() const noexcept { return ""; }
    /** The exit codes this command gives that differ from every command's 0 / 1 / 2 (README "Exit codes"). */
    virtual std::vector<CommandExitCode> exit_codes() const { return {}; }
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

    /** The subcommand's usage line, option table and, last, the line naming its page(). */
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
