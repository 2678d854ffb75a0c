// The one-line reason of a failed program, read from its kept stderr (runner/process/error_line.hpp).
#include "runner/process/error_line.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace shardrun::process {
namespace {

std::string reason_of(const std::string& text)
{
    const testing::TempDir dir("error_line_");
    const auto path = dir.path() + "/stderr";
    std::ofstream(path) << text;
    return first_error_line(path);
}

TEST(ErrorLine, APythonTracebackGivesTheExceptionNotTheSourceLine)
{
    // Issue 35, point 9: the raise statement's source line names an error too.
    const std::string traceback = "Traceback (most recent call last):\n"
                                  "  File \"/work/member.py\", line 12, in <module>\n"
                                  "    raise RuntimeError(f\"member {rank} failed\")\n"
                                  "RuntimeError: member 1 failed\n";

    EXPECT_EQ(reason_of(traceback), "RuntimeError: member 1 failed");
    EXPECT_EQ(reason_of("loading\n" + traceback + "more after\n"), "RuntimeError: member 1 failed");
}

TEST(ErrorLine, AChainedTracebackGivesTheFirstException)
{
    const std::string text = "Traceback (most recent call last):\n  File \"a.py\", line 2, in f\n    open(p)\n"
                             "FileNotFoundError: [Errno 2] No such file or directory: 'x.npy'\n\n"
                             "During handling of the above exception, another exception occurred:\n\n"
                             "Traceback (most recent call last):\n  File \"a.py\", line 4\n    raise ValueError(\"bad\")\n"
                             "ValueError: bad\n";

    EXPECT_EQ(reason_of(text), "FileNotFoundError: [Errno 2] No such file or directory: 'x.npy'");
}

TEST(ErrorLine, OtherProgramsKeepTheFirstLineNamingAnErrorElseTheLast)
{
    EXPECT_EQ(reason_of("starting\nerror: cannot open input.dat\nbye\n"), "error: cannot open input.dat");
    EXPECT_EQ(reason_of("terminate called after throwing an instance of 'std::runtime_error'\n  what():  boom\n"),
              "terminate called after throwing an instance of 'std::runtime_error'");
    EXPECT_EQ(reason_of("one\ntwo\n\n"), "two");
    EXPECT_EQ(reason_of(""), "");
}

}  // namespace
}  // namespace shardrun::process
