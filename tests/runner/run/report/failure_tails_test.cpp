// The end of a cloud element's log: failed tasks' reasons and last stderr lines, bounded.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runner/run/report/failure_tails.hpp"

namespace fs = std::filesystem;

namespace shardrun::run {
namespace {

TEST(FailedTasksBlock, NoFailureNoBlock)
{
    RankStats rank;
    rank.ok = 3;

    EXPECT_EQ(failed_tasks_block("s3://b/run.h5", {rank}), "");
}

TEST(FailedTasksBlock, LowestIdsFirstWithTheirLinesThenACount)
{
    RankStats a, b;
    for (std::uint64_t id = 0; id < 12; ++id) {
        auto& rank = id % 2 == 0 ? a : b;
        rank.failed += 1;
        rank.failures.push_back({11 - id, 1, "exit code 1", {"line of " + std::to_string(11 - id)}});
    }

    const auto block = failed_tasks_block("s3://b/run.h5", {a, b});

    EXPECT_EQ(block.rfind("shardrun: failed tasks' last stderr lines (a task's whole output: shardrun logs s3://b/run.h5 "
                          "ID --stderr):\n  task 0: exit code 1\n    | line of 0\n  task 1: ", 0), 0U) << block;
    EXPECT_NE(block.find("    | line of 9\n  and 2 more failed tasks: shardrun status s3://b/run.h5\n"), std::string::npos)
        << block;
    EXPECT_EQ(block.find("task 10:"), std::string::npos) << block;
}

TEST(FailedTasksBlock, FailuresBeyondTheKeptOnesAreCounted)
{
    RankStats rank;
    rank.failed = 2000;  // RankStats keeps the first 1000 failures only
    rank.failures.push_back({5, 2, "exit code 2", {}});

    const auto block = failed_tasks_block("gs://b/r.h5", {rank});

    EXPECT_NE(block.find("  task 5: exit code 2\n  and 1999 more failed tasks"), std::string::npos) << block;
}

TEST(LastLines, TheLastLinesOfABigFileCutToWidth)
{
    const auto path = (fs::temp_directory_path() / ("shardrun-last-lines-" + std::to_string(getpid()))).string();
    {
        std::ofstream out(path);
        for (int line = 0; line < 5000; ++line) out << "line " << line << "\n";
        out << std::string(300, 'y') << "\n";
    }

    const auto lines = last_lines(path, 3);
    fs::remove(path);

    ASSERT_EQ(lines.size(), 3U);
    EXPECT_EQ(lines[0], "line 4998");
    EXPECT_EQ(lines[1], "line 4999");
    EXPECT_EQ(lines[2], std::string(200, 'y') + "...");
    EXPECT_TRUE(last_lines(path, 3).empty());
}

TEST(AddStderrTail, OnlyTheFirstFailuresGetTheirLines)
{
    const auto tasks = fs::temp_directory_path() / ("shardrun-tails-" + std::to_string(getpid()));
    fs::create_directories(tasks / "7");
    std::ofstream(tasks / "7" / "stderr") << "a\nb\nc\n";
    RankStats first, late;
    first.failures.push_back({7, 1, "x", {}});
    for (std::uint64_t id = 0; id <= element_log_tasks; ++id) late.failures.push_back({id == element_log_tasks ? 7 : id, 1, "x", {}});

    add_stderr_tail(first, 7, tasks.string(), 2);
    add_stderr_tail(late, 7, tasks.string(), 2);
    fs::remove_all(tasks);

    EXPECT_EQ(first.failures.back().stderr_tail, (std::vector<std::string>{"b", "c"}));
    EXPECT_TRUE(late.failures.back().stderr_tail.empty());
}

}  // namespace
}  // namespace shardrun::run
