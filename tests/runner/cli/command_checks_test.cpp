// Every subcommand's check(): what it refuses before anything runs, as one line, touching no
// file. The cases are keyed by subcommand name, and a subcommand of the factory without a
// refusal here fails EverySubcommandHasACheckCase: a new subcommand brings its case.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner/cli/command.hpp"
#include "runner/cli/commands.hpp"
#include "runner/errors.hpp"

namespace shardrun::cli {
namespace {

struct Refusal {
    std::vector<std::string> args;
    std::string says;  ///< a part of the one-line message
};

// The job files named here need not exist: check() opens no file.
const std::multimap<std::string, Refusal>& refusals()
{
    static const std::multimap<std::string, Refusal> cases = {
        {"run", {{"job.yaml", "--progress-interval", "0"}, "--progress-interval must be positive"}},
        {"run", {{"job.yaml", "--resume", "--force"}, "--resume and --force contradict each other"}},
        {"run", {{"job.yaml", "--output", "x.h5"}, "--output goes with --task"}},
        {"plan", {{"job.yaml", "--ranks", "0"}, "--ranks must be at least 1"}},
        {"plan", {{"job.yaml", "--gpus-per-node", "-1"}, "--gpus-per-node must be 0 or more"}},
        {"status", {{}, "status: name the results file"}},
        {"logs", {{"out.h5", "x"}, "the task id must be a non-negative integer, not 'x'"}},
        {"logs", {{"out.h5", "3", "--attempt", "0"}, "--attempt counts from 1"}},
        {"merge", {{}, "merge: name the results file"}},
        {"table", {{"out.h5", "--csv", "--json"}, "--csv and --json exclude each other"}},
        {"table", {{"out.h5", "--ratio", "cpu"}, "--ratio needs --pivot PARAM"}},
        {"export", {{"out.h5"}, "say what to write, one of --grid FILE.nc or --parquet FILE.parquet"}},
        {"report", {{"out.h5", "--run-gap", "0"}, "give seconds above 0"}},
        {"submit", {{"job.yaml", "--to", "pbs"}, "--to 'pbs' is not a target; use "}},
        {"submit", {{"job.yaml", "--to", "slurm", "--array", "0"}, "--array 0 must be at least 1"}},
        {"info", {{"--array-index", "-1"}, "--array-index"}},
        {"kinds", {{"heat"}, "'heat' is not a task kind (did you mean 'heat2d'?)"}},
        {"selftest", {{"--device", "tpu"}, "--device 'tpu' is not allowed; allowed: cpu, cuda, all"}},
        {"bench", {{"allreduce", "--iters", "0"}, "must be at least 1"}},
        {"bench", {{"gather"}, "unknown benchmark; use allreduce"}},
        {"docs", {{}, "docs: name a page; the pages: job-file, kinds, cli, man, man-include, commands"}},
        {"docs", {{"jobfile"}, "docs: 'jobfile' is not a page"}},
        {"docs", {{"kinds", "run"}, "docs: kinds takes no command; only cli, man and man-include do"}},
        {"docs", {{"cli", "rnu"}, "docs: 'rnu' is not a command (see shardrun docs commands)"}},
    };
    return cases;
}

std::set<std::string> listed_names()
{
    std::set<std::string> names;
    for (const auto& factory : command_factories()) names.insert(std::string(factory()->name()));
    return names;
}

TEST(CommandChecks, EverySubcommandHasACheckCase)
{
    for (const auto& name : listed_names()) {
        EXPECT_EQ(refusals().count(name) > 0, true) << "shardrun " << name << ": no check() case in this file";
    }
    for (const auto& [name, refusal] : refusals()) {
        EXPECT_TRUE(listed_names().count(name)) << name << " is not a subcommand";
    }
}

TEST(CommandChecks, EachRefusalIsOneLineAndWritesNothing)
{
    const auto here = std::filesystem::temp_directory_path() / "shardrun-command-checks";
    std::filesystem::create_directories(here);
    const auto before = std::filesystem::current_path();
    std::filesystem::current_path(here);
    for (const auto& [name, refusal] : refusals()) {
        auto command = make_command(name);
        ASSERT_NE(command, nullptr) << name;
        try {
            command->setup(refusal.args);
            ADD_FAILURE() << "shardrun " << name << ": accepted what it should refuse (" << refusal.says << ")";
        } catch (const UsageError& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find(refusal.says), std::string::npos) << "shardrun " << name << ": " << message;
            EXPECT_EQ(message.find('\n'), std::string::npos) << "shardrun " << name << ": " << message;
        }
        EXPECT_TRUE(std::filesystem::is_empty(here)) << "shardrun " << name << "'s check wrote a file";
    }
    std::filesystem::current_path(before);
    std::filesystem::remove_all(here);
}

TEST(CommandChecks, AnUnknownOptionIsRefusedByEverySubcommand)
{
    for (const auto& factory : command_factories()) {
        auto command = factory();
        EXPECT_THROW(command->setup({"--no-such-option"}), UsageError) << command->name();
    }
}

}  // namespace
}  // namespace shardrun::cli
