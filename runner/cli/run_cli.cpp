#include "runner/cli/run_cli.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "io/errors.hpp"
#include "runner/cli/commands.hpp"
#include "runner/env/scheduler.hpp"
#include "runner/job/yaml_context.hpp"
#include "runner/errors.hpp"
#include "runner/run/error_codes.hpp"
#include "runner/run/error_message.hpp"
#include "runner/run/interrupt.hpp"
#include "runner/storage/remote_copy.hpp"
#include "runner/version.hpp"

namespace {

using shardrun::cli::command_factories;

void print_usage(std::ostream& out)
{
    out << "usage: shardrun <command> [options]\n"
           "       shardrun --help | --version\n\ncommands:\n";
    for (const auto& factory : command_factories()) {
        const auto command = factory();
        if (!command->listed()) continue;
        out << "  " << command->name() << std::string(10 - command->name().size(), ' ') << command->synopsis()
            << "\n";
    }
    out << "\n'shardrun <command> --help' shows the options of a command.\n"
           "Each command's reference is a page of the site scripts/docs builds (docs/reference/cli/) and\n"
           "man shardrun-<command> after cmake --install. Documentation: docs/index.md\n";
}

/** This process's rank as its launcher numbered it, read without MPI (env/scheduler); 0 when none. */
int launcher_rank() noexcept
{
    try {
        return static_cast<int>(shardrun::env::detect_scheduler(shardrun::env::process_env()).launcher_rank.value_or(0));
    } catch (const std::exception&) {
        return 0;  // a malformed variable: say the error rather than nothing
    }
}

/**
 * Waits 1.5 s plus `rank` half-seconds (at most 5 s in all) for a lower rank's report. Open MPI
 * ends a job whose rank called MPI_Abort by sending SIGTERM to the others, which this process
 * catches as a stop (runner/run/interrupt.hpp), and SIGKILL odls_base_sigkill_timeout (1 s)
 * later: a first signal that arrives while waiting means another rank has reported: false then
 * (stay silent). A signal that came before this rank failed may be that same SIGTERM (two ranks
 * meet a full disk at once, and mpirun is quicker than this rank's write): then the wait lets
 * the SIGKILL end this rank silently; a rank still alive after it was stopped from outside,
 * and says it. True when the wait ran out.
 */
bool should_report_here(int rank)
{
    const int ticks = std::min(30 + rank * 10, 100);  // 50 ms each
    if (shardrun::run::first_signal() != 0) {
        usleep(ticks * 50'000);
        return true;
    }
    for (int tick = 0; tick < ticks; ++tick) {
        usleep(50'000);
        if (shardrun::run::first_signal() != 0) return false;
    }
    return true;
}

/**
 * Reports an error once and ends the job with `code`. With several ranks a failing rank
 * must abort the whole job, or the others wait forever in their next collective.
 */
int fail(const std::exception& error, int code)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    const bool mpi_live = initialized && !finalized;
    int rank = 0, size = 1;
    if (mpi_live) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    // Bad input is usually seen by every rank: give rank 0 a moment to report it and abort
    // the job, so the user reads one line instead of one per rank.
    if (size > 1 && rank != 0 && code == shardrun::exit_bad_input) sleep(2);
    // A full disk is usually met by several ranks at once: the lowest of them says it, and
    // its MPI_Abort ends the others while they wait their turn (a rank alone still says it).
    if (size > 1 && rank != 0 && dynamic_cast<const shardrun::io::WriteError*>(&error) != nullptr &&
        !should_report_here(rank)) {
        return code;
    }
    // Before MPI_Init (a usage error: every rank parsed the same command line) only the
    // launcher's rank 0 says it; the others leave with the same code after a moment, so that
    // mpirun, which ends the job at the first non-zero exit, does not cut rank 0's line off.
    if (!mpi_live && code == shardrun::exit_bad_input && launcher_rank() != 0) {
        sleep(2);
        return code;
    }
    // A command on an s3:// output worked in a local copy: the message names the URL, not the copy.
    std::cerr << "shardrun: " << (size > 1 ? "rank " + std::to_string(rank) + ": " : "")
              << shardrun::storage::named_by_remotes(shardrun::run::user_message(error)) << "\n";
    if (mpi_live && size > 1) MPI_Abort(MPI_COMM_WORLD, code);
    if (mpi_live) MPI_Finalize();
    return code;
}

}  // namespace

namespace shardrun::cli {

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << "shardrun: no command given; the commands are listed below\n";
        print_usage(std::cerr);
        return shardrun::exit_bad_input;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        print_usage(std::cout);
        return shardrun::exit_ok;
    }
    if (args[0] == "--version" || args[0] == "-V") {
        std::cout << "shardrun " << shardrun::shardrun_version << " (" << shardrun::shardrun_git_commit << ")\n";
        return shardrun::exit_ok;
    }
    auto command = shardrun::cli::make_command(args[0]);
    if (!command) {
        std::vector<std::string> all;
        for (const auto& factory : command_factories()) {
            if (const auto listed = factory(); listed->listed()) all.emplace_back(listed->name());
        }
        // Commands are lower case: `RUN` or `Status` is the command in the wrong case.
        std::string lower = args[0];
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const auto closest = std::find(all.begin(), all.end(), lower) != all.end() ? lower
                                                                                   : shardrun::job::closest_name(lower, all);
        std::string names;
        for (const auto& name : all) names += (names.empty() ? "" : ", ") + name;
        // Through fail(): under mpirun only the launcher's rank 0 says it, once, whole.
        const shardrun::UsageError unknown(
            __FILE__, __LINE__,
            "unknown command '" + args[0] + "'" + (closest.empty() ? "" : " (did you mean '" + closest + "'?)") +
                "; the commands are " + names + " (see shardrun --help)");
        return fail(unknown, shardrun::exit_bad_input);
    }
    // A usage error is one line with a pointer to the option table, not the table itself (or
    // to the docs page that explains it, when it has one: fail() appends that).
    try {
        if (!command->setup({args.begin() + 1, args.end()})) return shardrun::exit_ok;
    } catch (const shardrun::UsageError& error) {
        if (shardrun::run::docs_of(error) != nullptr) return fail(error, shardrun::exit_bad_input);
        const shardrun::UsageError pointed(
            error.file(), error.line(),
            std::string(error.what()) + " (see shardrun " + std::string(command->name()) + " --help)");
        return fail(pointed, shardrun::exit_bad_input);
    }
    try {
        return command->run();
    } catch (const shardrun::CollectiveFailure& error) {
        // Every rank knows; the one that saw it first prints, and all end without MPI_Abort.
        if (error.print_here()) std::cerr << "shardrun: " << error.what() << "\n";
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Finalize();
        return error.code();
    } catch (const std::exception& error) {
        return fail(error, shardrun::run::exit_code_of(error));
    }
}

}  // namespace shardrun::cli
