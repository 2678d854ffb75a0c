// TaskOutput's scratch files and result folder, and the sweep of those a killed process left.
#include "runner/process/task_output.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "io/layout/output_layout.hpp"
#include "io/layout/running_index.hpp"
#include "runner/process/process_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::process {
namespace {

std::vector<std::string> entries(const std::string& dir)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

TEST(TaskOutputPool, TheFirstSlotRemovesOnlyWhatDeadProcessesOfThisHostLeft)
{
    testing::TempDir dir;
    // A pid above any pid_max has no /proc entry: that process is gone.
    const std::string dead = ".scratch-node-4999999-123-0";
    dir.write(dead + ".stdout", "");
    dir.write(dead + ".running", "task=3\n");  // its running index (live_index.hpp) goes with its scratch
    std::filesystem::create_directory(dir.file(dead + ".results"));
    dir.write(dead + ".results/result.json", "{}");
    // Kept: this live process's, another host's (even one whose name extends ours: "node-12"),
    // and names that are not scratch names.
    const std::string live = ".scratch-node-" + rank_token() + "-7.stderr";
    const std::string longer_host = ".scratch-node-12-4999999-123-0.stdout";
    const std::string other_host = ".scratch-other-4999999-123-0.stdout";
    for (const auto& name : {live, longer_host, other_host, std::string("7"), std::string(".scratch-node-x.stdout")}) {
        dir.write(name, "");
    }

    TaskOutputPool pool;
    auto output = pool.acquire(dir.path(), "node");
    const auto mine = ".scratch-node-" + rank_token() + "-0.";
    output->result_dir();

    std::vector<std::string> expected{longer_host, live, mine + "results", mine + "running", mine + "stderr", mine + "stdout",
                                      ".scratch-node-x.stdout", other_host, "7"};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(entries(dir.path()), expected);
    pool.release(std::move(output));
}

TEST(TaskOutput, KeepsOnlyTheResultFilesThatExistAndRemovesItsFolderAtTheEnd)
{
    testing::TempDir dir;
    std::string folder;
    {
        TaskOutput output(dir.path(), "h-1-2-0");
        folder = output.result_dir();
        EXPECT_EQ(folder, dir.file(".scratch-h-1-2-0.results"));
        dir.write(".scratch-h-1-2-0.results/result.json", "bad");
        EXPECT_EQ(output.keep_results(dir.file("5"), {"result.json", "result.h5", "v.npy"}), "");
        EXPECT_EQ(dir.read("5/result.json"), "bad");
        EXPECT_EQ(entries(dir.file("5")), std::vector<std::string>{"result.json"});
    }
    EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(TaskOutput, ItsRunningIndexNamesTheTaskOnlyWhileItRunsAndGoesWithTheSlot)
{
    testing::TempDir dir;
    const auto index = io::layout::running_index_path(dir.path(), "h-1-2-0");
    {
        TaskOutput output(dir.path(), "h-1-2-0");
        EXPECT_FALSE(io::layout::read_running_index(index).has_value()) << "a new slot runs nothing";
        for (const std::uint64_t task : {123456u, 7u}) {  // a shorter entry over a longer one
            RunningMark mark(output.index(), {task, 0, output.scratch_path(0), output.scratch_path(1), 2, "h"});
            const auto read = io::layout::read_running_index(index);
            ASSERT_TRUE(read.has_value());
            EXPECT_EQ(read->task, task);
            EXPECT_EQ(read->attempt, 2);
            EXPECT_EQ(read->stdout_path, output.scratch_path(0));
        }
        EXPECT_FALSE(io::layout::read_running_index(index).has_value()) << "the mark's end made the slot idle";
        // No file per task: the slot's three scratch files and its index, nothing else.
        EXPECT_EQ(entries(dir.path()).size(), 3u);
    }
    EXPECT_FALSE(std::filesystem::exists(index));
}

}  // namespace
}  // namespace shardrun::process
