// A task log as the bucket keeps it: whole up to the bound, else its tail after "[first N bytes cut]".
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runner/storage/task_log_upload.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {
namespace {

class CopyLogTail : public ::testing::Test {
protected:
    void SetUp() override
    {
        std::string pattern = (fs::temp_directory_path() / "shardrun-log-tail-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string write(const std::string& text)
    {
        const auto path = (dir_ / "stderr.1").string();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    std::string read(const std::string& path)
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    fs::path dir_;
};

TEST_F(CopyLogTail, ShortFileIsCopiedWhole)
{
    const auto from = write("one\ntwo\n");
    const auto to = (dir_ / "up" / "tasks" / "3" / "stderr.1").string();

    const bool copied = copy_log_tail(from, to, 100);

    EXPECT_TRUE(copied);
    EXPECT_EQ(read(to), "one\ntwo\n");
}

TEST_F(CopyLogTail, LongFileKeepsItsTailFromALineStartAndSaysTheCut)
{
    // 10 lines of 10 bytes; a bound of 25 bytes starts in line 8, so lines 9 and 10 are kept.
    std::string text;
    for (int line = 1; line <= 10; ++line) text += std::string(8, static_cast<char>('a' + line - 1)) + ".\n";
    const auto from = write(text);
    const auto to = (dir_ / "cut").string();

    const bool copied = copy_log_tail(from, to, 25);

    EXPECT_TRUE(copied);
    EXPECT_EQ(read(to), "[first 80 bytes cut]\niiiiiiii.\njjjjjjjj.\n");
}

TEST_F(CopyLogTail, OneLongLineIsCutMidLine)
{
    const auto from = write(std::string(100, 'x'));
    const auto to = (dir_ / "cut").string();

    copy_log_tail(from, to, 10);

    EXPECT_EQ(read(to), "[first 90 bytes cut]\n" + std::string(10, 'x'));
}

TEST_F(CopyLogTail, MissingFileIsReported)
{
    EXPECT_FALSE(copy_log_tail((dir_ / "none").string(), (dir_ / "to").string(), 10));
    EXPECT_FALSE(fs::exists(dir_ / "to"));
}

}  // namespace
}  // namespace shardrun::storage
