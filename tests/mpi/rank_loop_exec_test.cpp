// run_rank_loop with the exec kind: every task runs once with its own argv, environment,
// output files and result; slots_per_rank runs tasks at once (run at 1, 2, 4 ranks).
#include <gtest/gtest.h>

#include "io/attempt_log.hpp"
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <thread>

#include <signal.h>

#include "io/attempt_log.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/loop/rank_loop.hpp"
#include "runner/tasks/registry.hpp"
#include "tests/support/memory_sink.hpp"
#include "tests/support/mpi_world.hpp"
#include "tests/support/rank_loop_env.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::run {
namespace {

using shardrun::testing::world_rank;
using shardrun::testing::world_size;

// A directory every rank knows, made by rank 0; removed by rank 0 at the end.
class SharedDir {
public:
    SharedDir()
    {
        std::vector<char> name(256, '\0');
        if (world_rank() == 0) {
            const auto made = shardrun::testing::make_temp_dir("shardrun_exec_loop_");
            std::copy_n(made.begin(), std::min<size_t>(made.size(), 255), name.begin());
        }
        world_->broadcast(std::span<char>(name), 0);
        path = name.data();
    }
    ~SharedDir()
    {
        world_->barrier();
        std::error_code ignored;
        if (world_rank() == 0) std::filesystem::remove_all(path, ignored);
    }
    std::unique_ptr<collectives::Communicator> world_ = collectives::mpi::world();
    std::string path;
};

std::string read_file(const std::string& path)
{
    std::ifstream stream(path);
    std::stringstream text;
    text << stream.rdbuf();
    return text.str();
}

// Runs `text` (an exec job) on every rank; returns this rank's sink.
MemorySink run_exec_job(const std::string& text, const std::string& tasks_dir, const std::atomic<bool>* stop = nullptr)
{
    const auto spec = job::parse_job("exec.yaml", text, {}, tasks::task_kind_names());
    const auto kind = tasks::make_task_kind(spec);
    MemorySink sink;
    testing::LoopRunOptions options;
    options.tasks_dir = tasks_dir;
    options.stop = stop;
    testing::run_loop(spec, *kind, sink, options);
    return sink;
}

std::vector<std::uint64_t> all_ids(const MemorySink& sink)
{
    std::vector<std::uint64_t> mine;
    for (const auto& record : sink.records) mine.push_back(record.task_id);
    auto all = shardrun::testing::gather_on_rank0(mine);
    std::sort(all.begin(), all.end());
    return all;
}

class RankLoopExec : public ::testing::TestWithParam<std::string> {};

TEST_P(RankLoopExec, SweepOf100TasksRunsEachOnceWithItsEnvironment)
{
    const SharedDir dir;
    const std::string text = "task: exec\nsweep: {a: {range: [0, 100, 1]}}\nschedule: " + GetParam() +
                             "\nexec:\n  argv: [sh, -c, 'echo \"$0 $SHARDRUN_PARAM_A $SHARDRUN_TASK_ID $SHARDRUN_TASK_COUNT\"; "
                             "printf \"{{\\\"v\\\": %s}}\" $SHARDRUN_TASK_ID > $SHARDRUN_RESULT', 'arg{a}']\n"
                             "  results: {v: int64}\n";

    const auto sink = run_exec_job(text, dir.path);

    for (size_t i = 0; i < sink.records.size(); ++i) {
        const auto id = sink.records[i].task_id;
        ASSERT_EQ(sink.records[i].status, io::TaskStatus::ok) << "task " << id;
        ASSERT_EQ(sink.values[i].size(), 1u);
        std::int64_t v = -1;
        std::memcpy(&v, sink.values[i][0].data(), sizeof(v));
        EXPECT_EQ(v, static_cast<std::int64_t>(id));
        EXPECT_EQ(read_file(dir.path + "/" + std::to_string(id) + "/stdout"),
                  "arg" + std::to_string(id) + " " + std::to_string(id) + " " + std::to_string(id) + " 100\n");
    }
    std::vector<std::uint64_t> expected(100);
    std::iota(expected.begin(), expected.end(), 0);
    const auto all = all_ids(sink);
    if (world_rank() == 0) EXPECT_EQ(all, expected);
}

TEST_P(RankLoopExec, SlotsPerRankRunTasksAtOnce)
{
    // Each rank runs 2 tasks at a time: a task waits (bounded) until two tasks of its rank
    // have started, which only happens when they run concurrently.
    const SharedDir dir;
    const std::string text = "task: exec\nsweep: {a: {range: [0, " + std::to_string(2 * world_size()) +
                             ", 1]}}\nschedule: {kind: " + GetParam() + ", max_claim: 2}\nslots_per_rank: 2\n"
                             "exec:\n  argv: [sh, -c, 'd=" + dir.path + "/started-{rank}; mkdir -p $d; touch $d/{task_id}; "
                             "i=0; while [ $(ls $d | wc -l) -lt 2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
                             "[ $(ls $d | wc -l) -ge 2 ]']\n";

    const auto sink = run_exec_job(text, dir.path);

    for (const auto& record : sink.records) {
        EXPECT_EQ(record.status, io::TaskStatus::ok) << "task " << record.task_id << " never saw a second task start";
    }
    const auto all = all_ids(sink);
    if (world_rank() == 0) EXPECT_EQ(all.size(), static_cast<size_t>(2 * world_size()));
}

TEST(RankLoopExecInterrupt, InterruptedTaskIsRecordedPendingWithItsAttempt)
{
    // Every task announces itself and sleeps; once this rank's first task has started, the
    // rank is interrupted: the killed task is recorded only as a pending row whose one attempt
    // is marked interrupted (/attempts keeps it, --resume runs it again), and no task after it starts.
    const SharedDir dir;
    const std::string started = dir.path + "/started-" + std::to_string(world_rank());
    const std::string text = "task: exec\nsweep: {a: {range: [0, " + std::to_string(3 * world_size()) +
                             ", 1]}}\nschedule: dynamic\nexec:\n  argv: [sh, -c, 'touch " + dir.path +
                             "/started-{rank}; sleep 30']\n";
    std::atomic<bool> stop{false};
    std::thread interrupter([&] {
        for (int i = 0; i < 1000 && !std::filesystem::exists(started); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        stop = true;
    });

    const auto sink = run_exec_job(text, dir.path, &stop);
    interrupter.join();

    ASSERT_LE(sink.records.size(), 1u) << sink.records.size() << " tasks recorded after the interrupt";
    for (const auto& record : sink.records) {
        EXPECT_EQ(record.status, io::TaskStatus::pending) << "task " << record.task_id;
        const auto attempts = io::decode_attempts(record.attempt_log);
        ASSERT_EQ(attempts.size(), 1u) << record.attempt_log;
        EXPECT_TRUE(attempts[0].interrupted);
        EXPECT_EQ(attempts[0].attempt, 1);
        EXPECT_EQ(record.attempts, 1);
        EXPECT_EQ(attempts[0].host, record.host);  // the rank's host (this harness names none)
    }
}

TEST(RankLoopExecGroups, AFailingMemberFailsTheTaskAndStopsTheOthers)
{
    // One task per group. The group's last member exits 3 at once; the others note their pid
    // and sleep a minute: they must be stopped, and the leader must record the failure.
    const SharedDir dir;
    const int g = world_size() >= 2 ? 2 : 1;
    const std::string text = "task: exec\nsweep: {a: {range: [0, " + std::to_string(world_size() / g) +
                             ", 1]}}\nschedule: block\ngpus_per_task: " + std::to_string(g) +
                             "\nexec:\n  argv: [sh, -c, 'if [ $RANK -eq $((WORLD_SIZE - 1)) ]; then exit 3; fi; "
                             "echo $$ > $SHARDRUN_TASK_DIR/pid; exec sleep 60']\n";
    const auto started = std::chrono::steady_clock::now();

    const auto sink = run_exec_job(text, dir.path);

    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_LT(seconds, 30.0) << "the members kept waiting for a program that had failed";
    EXPECT_EQ(sink.records.size(), world_rank() % g == 0 ? 1u : 0u);
    for (const auto& record : sink.records) {
        EXPECT_EQ(record.status, io::TaskStatus::failed);
        EXPECT_NE(record.exit_code, 0);
    }
    if (g == 2 && !sink.records.empty()) {
        const auto failure = std::find_if(sink.records.begin(), sink.records.end(), [](const auto&) { return true; });
        EXPECT_EQ(failure->exit_code, 128 + SIGTERM) << "the leader's program should have been stopped";
    }
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path)) {
        if (entry.path().filename() != "pid") continue;
        const pid_t pid = std::stoi(read_file(entry.path().string()));
        EXPECT_NE(::kill(pid, 0), 0) << "member program " << pid << " (" << entry.path() << ") outlived its task";
    }
}

INSTANTIATE_TEST_SUITE_P(Schedules, RankLoopExec, ::testing::Values("static", "cyclic", "dynamic"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace shardrun::run
