// A slot's running index (io/layout/running_index): what a reader makes of the file while the
// runner rewrites it in place, torn reads and what a longer earlier entry left behind included.
#include "io/layout/running_index.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/layout/output_layout.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::io::layout {
namespace {

RunningEntry entry(std::uint64_t task, const std::string& dir = "/out.tasks")
{
    return {task, 1, dir + "/.scratch-n-1-2-0.stdout", dir + "/.scratch-n-1-2-0.stderr", 3, "node-a"};
}

std::string running_text(const RunningEntry& e)
{
    auto text = format_running(e);
    text[0] = 't';  // what LiveIndex::running writes last
    return text;
}

TEST(RunningIndex, ReadsBackWhatItWrote)
{
    const auto read = parse_running(running_text(entry(42)));
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->task, 42u);
    EXPECT_EQ(read->member, 1);
    EXPECT_EQ(read->attempt, 3);
    EXPECT_EQ(read->host, "node-a");
    EXPECT_EQ(read->stdout_path, "/out.tasks/.scratch-n-1-2-0.stdout");
    EXPECT_EQ(read->stderr_path, "/out.tasks/.scratch-n-1-2-0.stderr");
}

TEST(RunningIndex, BetweenTasksNamesNone)
{
    EXPECT_FALSE(parse_running(format_running(entry(42))).has_value()) << "written, not flipped yet";
    auto idle = running_text(entry(42));
    idle[0] = '#';  // LiveIndex::idle
    EXPECT_FALSE(parse_running(idle).has_value());
    EXPECT_FALSE(parse_running("").has_value());
}

TEST(RunningIndex, AShorterEntryOverALongerOneIgnoresTheLeftovers)
{
    auto text = running_text(entry(123456789, "/a/much/longer/output/folder.tasks"));
    const auto shorter = running_text(entry(7));
    ASSERT_LT(shorter.size(), text.size());
    text.replace(0, shorter.size(), shorter);  // pwrite at offset 0 of the same file
    const auto read = parse_running(text);
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->task, 7u);
    EXPECT_EQ(read->stdout_path, "/out.tasks/.scratch-n-1-2-0.stdout");
}

TEST(RunningIndex, ATornReadNamesNone)
{
    // The new entry's start over the old one's end: the end line names another task.
    auto text = running_text(entry(123456789, "/a/much/longer/output/folder.tasks"));
    const auto newer = running_text(entry(7));
    text.replace(0, newer.size() / 2, newer.substr(0, newer.size() / 2));
    EXPECT_FALSE(parse_running(text).has_value()) << text;
    // Cut short before the end line.
    const auto whole = running_text(entry(7));
    EXPECT_FALSE(parse_running(whole.substr(0, whole.size() - 4)).has_value());
}

TEST(RunningIndex, FindsATaskAmongTheSlotsOfAFolder)
{
    const testing::TempDir dir;
    const std::filesystem::path tasks = dir.file("out.h5.tasks");
    std::filesystem::create_directories(tasks);
    std::ofstream(running_index_path(tasks, "n-1-2-0")) << running_text(entry(5));
    auto idle = running_text(entry(6));
    idle[0] = '#';
    std::ofstream(running_index_path(tasks, "n-1-2-1")) << idle;
    std::ofstream(tasks / ".scratch-n-1-2-0.stdout") << "task=5\n";  // a scratch file, no index
    EXPECT_EQ(running_entries(tasks).size(), 1u);
    EXPECT_TRUE(find_running(tasks, 5, 1).has_value());
    EXPECT_FALSE(find_running(tasks, 5, 0).has_value()) << "member 0 of task 5 is not running";
    EXPECT_FALSE(find_running(tasks, 6, 1).has_value()) << "its slot went idle";
    EXPECT_TRUE(is_running_index(".scratch-n-1-2-0.running"));
    EXPECT_FALSE(is_running_index(".scratch-n-1-2-0.stdout"));
    EXPECT_FALSE(is_running_index("running"));
}

}  // namespace
}  // namespace shardrun::io::layout
