// TaskOutput's scratch files and result folder, and the sweep of those a killed process left.
#include "runner/process/task_output.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

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

    std::vector<std::string> expected{longer_host, live, mine + "results", mine + "stderr", mine + "stdout",
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

}  // namespace
}  // namespace shardrun::process
