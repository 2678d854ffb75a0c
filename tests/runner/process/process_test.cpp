#include "runner/process/process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <cmath>
#include <chrono>
#include <fstream>
#include <thread>

#include "tests/support/temp_dir.hpp"

namespace shardrun::process {
namespace {

using testing::TempDir;

ProcessSpec shell(const TempDir& dir, const std::string& script)
{
    ProcessSpec spec;
    spec.argv = {"sh", "-c", script};
    spec.env = {"PATH=/usr/bin:/bin", "GREETING=hello"};
    spec.stdout_path = dir.file("stdout");
    spec.stderr_path = dir.file("stderr");
    return spec;
}

bool never() { return false; }

// True when `pid` is gone or a zombie (killed, not yet reaped by its new parent).
bool is_dead(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, name, state;
    if (!(stat >> pid_field >> name >> state)) return true;
    return state == "Z" || state == "X";
}

// Waits a bounded while for `pid` to die: signals are delivered asynchronously.
bool dies_soon(pid_t pid)
{
    for (int i = 0; i < 300 && !is_dead(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return is_dead(pid);
}

pid_t pid_in(const TempDir& dir, const std::string& name)
{
    pid_t pid = 0;
    std::ifstream(dir.file(name)) >> pid;
    return pid;
}

// Ends a process this test started, if a failed expectation left it running.
void reap_leftover(pid_t pid)
{
    if (pid > 0 && !is_dead(pid)) kill(pid, SIGKILL);
}

TEST(Process, ExitStatusIsReported)
{
    TempDir dir;

    const auto result = run_process(shell(dir, "exit 3"), never);

    EXPECT_TRUE(result.started);
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_EQ(result.signal, 0);
    EXPECT_FALSE(result.timed_out);
}

TEST(Process, SuccessIsExitZero)
{
    TempDir dir;

    const auto result = run_process(shell(dir, "true"), never);

    EXPECT_TRUE(result.started);
    EXPECT_EQ(result.exit_code, 0);
}

TEST(Process, MissingCommandIs127)
{
    TempDir dir;
    auto spec = shell(dir, "");
    spec.argv = {"shardrun-test-no-such-command"};

    const auto result = run_process(spec, never);

    EXPECT_FALSE(result.started);
    EXPECT_EQ(result.spawn_error, ENOENT);
    EXPECT_EQ(result.exit_code, 127);
}

TEST(Process, FileThatIsNotExecutableIs126)
{
    TempDir dir;
    dir.write("script.sh", "#!/bin/sh\nexit 0\n");
    auto spec = shell(dir, "");
    spec.argv = {dir.file("script.sh")};

    const auto result = run_process(spec, never);

    EXPECT_FALSE(result.started);
    EXPECT_EQ(result.exit_code, 126);
}

TEST(Process, StdoutAndStderrGoToTheirFiles)
{
    TempDir dir;

    const auto result = run_process(shell(dir, "echo out-$GREETING; echo err-line >&2"), never);

    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(dir.read("stdout"), "out-hello\n");
    EXPECT_EQ(dir.read("stderr"), "err-line\n");
}

TEST(Process, OnlyTheGivenEnvironmentIsPassed)
{
    TempDir dir;
    ::setenv("SHARDRUN_TEST_PARENT_ONLY", "leak", 1);

    const auto result = run_process(shell(dir, "echo \"[$SHARDRUN_TEST_PARENT_ONLY]\""), never);

    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(dir.read("stdout"), "[]\n");
    ::unsetenv("SHARDRUN_TEST_PARENT_ONLY");
}

TEST(Process, KilledBySignalIs128PlusTheSignal)
{
    TempDir dir;

    const auto result = run_process(shell(dir, "kill -9 $$"), never);

    EXPECT_TRUE(result.started);
    EXPECT_EQ(result.signal, SIGKILL);
    EXPECT_EQ(result.exit_code, 128 + SIGKILL);
    EXPECT_FALSE(result.timed_out);
}

TEST(Process, TimeoutIs124AndEndsTheWholeGroup)
{
    TempDir dir;
    auto spec = shell(dir, "sleep 30 & echo $! > " + dir.file("child") + "; sleep 30");
    spec.timeout_seconds = 0.3;
    spec.grace_seconds = 0.2;

    const auto result = run_process(spec, never);
    const auto child = pid_in(dir, "child");

    EXPECT_TRUE(result.started);
    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.exit_code, 124);
    ASSERT_GT(child, 0);
    EXPECT_TRUE(dies_soon(child)) << "background child " << child << " survived the timeout";
    reap_leftover(child);
}

TEST(Process, TimeoutEscalatesToSigkillWhenTermIsIgnored)
{
    TempDir dir;
    auto spec = shell(dir, "trap '' TERM; sleep 30");
    spec.timeout_seconds = 0.3;
    spec.grace_seconds = 0.2;

    const auto result = run_process(spec, never);

    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.exit_code, 124);
    EXPECT_EQ(result.signal, SIGKILL);
}

TEST(Process, TimeoutKillsGroupMembersThatOutliveTheLeader)
{
    // The leader dies on SIGTERM; its child ignores SIGTERM and must get SIGKILL after the grace.
    TempDir dir;
    auto spec = shell(dir, "(trap '' TERM; exec sleep 30) & echo $! > " + dir.file("child") + "; wait");
    spec.timeout_seconds = 0.3;
    spec.grace_seconds = 0.2;

    const auto result = run_process(spec, never);
    const auto child = pid_in(dir, "child");

    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.exit_code, 124);
    ASSERT_GT(child, 0);
    EXPECT_TRUE(dies_soon(child)) << "group member " << child << " ignored SIGTERM and was never sent SIGKILL";
    reap_leftover(child);
}

TEST(Process, StopRequestEndsTheProcessWithoutATimeout)
{
    TempDir dir;
    auto spec = shell(dir, "sleep 30");
    spec.grace_seconds = 0.2;

    const auto result = run_process(spec, [] { return true; });

    EXPECT_TRUE(result.started);
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.signal, SIGTERM);
    EXPECT_EQ(result.exit_code, 128 + SIGTERM);
}

TEST(Process, Wait4AccountsTheProgramsCpuTimeAndPeakMemory)
{
    TempDir dir;
    // A child of the shell (waited for) writes 64 MiB: the peak is the child's, in bytes (not KiB).
    auto spec = shell(dir, "python3 -c 'b = b\"x\" * (64 << 20)'");

    const auto result = run_process(spec, never);

    EXPECT_EQ(result.exit_code, 0);
    EXPECT_GT(result.cpu_seconds, 0.0);
    EXPECT_LT(result.cpu_seconds, 30.0);
    EXPECT_GE(result.peak_rss_bytes, std::int64_t{64} << 20);
    EXPECT_LT(result.peak_rss_bytes, std::int64_t{256} << 20);
}

TEST(Process, AProgramThatDidNotStartIsNotMeasured)
{
    TempDir dir;
    ProcessSpec spec;
    spec.argv = {"/nonexistent/program"};

    const auto result = run_process(spec, never);

    EXPECT_FALSE(result.started);
    EXPECT_TRUE(std::isnan(result.cpu_seconds));
    EXPECT_EQ(result.peak_rss_bytes, -1);
}

TEST(Process, StdinComesFromTheGivenFile)
{
    TempDir dir;
    std::ofstream(dir.file("in")) << "from the file\n";
    auto spec = shell(dir, "cat");
    spec.stdin_path = dir.file("in");

    const auto result = run_process(spec, never);

    EXPECT_EQ(result.exit_code, 0);
    std::ifstream out(dir.file("stdout"));
    std::string line;
    std::getline(out, line);
    EXPECT_EQ(line, "from the file");
}

}  // namespace
}  // namespace shardrun::process
