// What an element's files say of a run that ended without its summary (io/read/unfinished_run):
// the lock's holder, each rank's last segment, the running indexes left behind; and nothing for
// an element that finished.
#include "io/read/unfinished_run.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/layout/element_manifest.hpp"
#include "io/layout/output_layout.hpp"
#include "io/layout/run_end_reason.hpp"
#include "io/layout/running_index.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::io {
namespace {

namespace fs = std::filesystem;

// An element of one run, as prepare_output leaves it: its manifest (unfinished), the lock file
// naming its holder, empty stand-ins for segments, and the slots' running indexes as a killed
// rank leaves them: three naming a task (a member's among them), one between tasks.
std::string killed_output(const testing::TempDir& dir)
{
    const auto path = dir.file("out.h5");
    fs::create_directories(layout::element_dir(path, 0));
    ElementManifest manifest;
    manifest.metadata.end_task = 40;
    write_manifest(path, manifest);
    std::ofstream(layout::lock_path(path, 0)) << "pid 4711 on node-a since 2026-11-28 19:19:58 UTC\n";
    for (const int rank : {0, 1}) {
        fs::create_directories(layout::rank_dir(path, 0, rank));
        std::ofstream(layout::segment_path(layout::rank_dir(path, 0, rank), 1));
    }
    fs::create_directories(layout::tasks_dir(path));
    int slot = 0;
    for (const auto& [id, member] : {std::pair{17ull, 0}, std::pair{17ull, 1}, std::pair{3ull, 0}, std::pair{9ull, 0}}) {
        auto text = layout::format_running({id, member, "/o.stdout", "/o.stderr", 1, "node-a"});
        if (id != 9) text[0] = 't';  // task 9's slot went idle: its '#' stays
        std::ofstream(layout::running_index_path(layout::tasks_dir(path), "node-a-4711-1-" + std::to_string(slot++))) << text;
    }
    return path;
}

TEST(UnfinishedRun, NamesTheHolderTheRanksAndTheTasksLeftRunning)
{
    const testing::TempDir dir;
    const auto path = killed_output(dir);

    const auto run = unfinished_run(path, 0);

    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->holder, "pid 4711 on node-a since 2026-11-28 19:19:58 UTC");
    ASSERT_EQ(run->last_commits.size(), 2u);
    EXPECT_EQ(run->last_commits[1].first, 1);
    EXPECT_GT(run->last_commits[1].second, 0.0);
    EXPECT_EQ(run->running_tasks, (std::vector<std::uint64_t>{3, 17})) << "a member's index is its leader's task";
    const auto line = unfinished_run_line(*run);
    EXPECT_EQ(line.rfind("the last run ended without a summary", 0), 0u) << line;
    EXPECT_NE(line.find("; it was pid 4711 on node-a since 2026-11-28 19:19:58 UTC; last commit per rank (UTC): rank 0 "),
              std::string::npos)
        << line;
    EXPECT_NE(line.find("; tasks running then: 3, 17; --resume runs what did not finish"), std::string::npos) << line;
}

TEST(UnfinishedRun, AReasonARankKeptIsSaidInsteadOfTheGuess)
{
    const testing::TempDir dir;
    const auto path = killed_output(dir);
    const std::string reason = "cannot commit results to out.h5.shards/a0/r0/00000002.h5.tmp: No space left on device; "
                               "free disk space and rerun with --resume (see docs/troubleshooting.md#disk-full)";
    record_run_end_reason(path, 0, "a longer reason\nof two lines, which a second rank then replaces with its own");
    record_run_end_reason(path, 0, reason);

    EXPECT_EQ(run_end_reason(path, 0), reason);
    const auto run = unfinished_run(path, 0);
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->holder, "pid 4711 on node-a since 2026-11-28 19:19:58 UTC") << "the holder's line stays";
    const auto line = unfinished_run_line(*run);
    EXPECT_EQ(line.rfind("the last run ended without a summary on an error: " + reason + "; it was pid 4711", 0), 0u)
        << line;
    EXPECT_EQ(line.find("a rank was killed"), std::string::npos) << line;
}

TEST(UnfinishedRun, NoReasonWithoutAHolderLine)
{
    // An empty lock file (its line never written: the disk was full at the start) has no block to use.
    const testing::TempDir dir;
    const auto path = killed_output(dir);
    std::ofstream(layout::lock_path(path, 0), std::ios::trunc);
    record_run_end_reason(path, 0, "cannot commit ...");
    EXPECT_EQ(run_end_reason(path, 0), "");
}

TEST(UnfinishedRun, AFinishedElementHasNone)
{
    const testing::TempDir dir;
    const auto path = killed_output(dir);
    auto manifest = *read_manifest(path, 0);
    manifest.finished = now_seconds();
    write_manifest(path, manifest);

    EXPECT_FALSE(unfinished_run(path, 0).has_value());
}

TEST(UnfinishedRun, AnElementNeverStartedHasNone)
{
    const testing::TempDir dir;

    EXPECT_FALSE(unfinished_run(dir.file("out.h5"), 0).has_value());
}

}  // namespace
}  // namespace shardrun::io
