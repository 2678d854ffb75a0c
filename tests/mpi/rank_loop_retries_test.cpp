// run_rank_loop's handling of failures, retries, resume and interrupts (run at 1, 2, 4 ranks).
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cstring>
#include <map>
#include <stdexcept>

#include "runner/job/job_parser.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/loop/rank_loop.hpp"
#include "tests/support/memory_sink.hpp"
#include "tests/support/mpi_world.hpp"
#include "tests/support/rank_loop_env.hpp"

namespace shardrun::run {
namespace {

using shardrun::testing::world_rank;
using shardrun::testing::world_size;

// ids % 7 == 0 always fail (exit 7); ids % 5 == 0 fail on their first attempt only;
// ids % 11 == 0 throw on the first attempt; ids % 13 == 0 return a value of the wrong size.
class FlakyKind : public tasks::TaskKind {
public:
    std::string_view name() const noexcept override { return "flaky"; }
    void validate(const job::ParamMap&, const tasks::JobView&) const override {}
    std::vector<io::FieldSpec> fields(const job::ParamMap&) const override
    {
        return {{"value", io::DType::float64, {}, ""}};
    }
    tasks::TaskOutcome run(const tasks::TaskContext& context) const override
    {
        const auto id = context.task_id;
        tasks::TaskOutcome outcome;
        if (id % 7 == 0 || (id % 5 == 0 && context.attempt == 1)) {
            outcome.status = io::TaskStatus::failed;
            outcome.exit_code = 7;
            outcome.message = "flaky";
            return outcome;
        }
        if (id % 11 == 0 && context.attempt == 1) throw std::runtime_error("thrown by the task");
        const double value = static_cast<double>(id);
        std::vector<std::byte> bytes(id % 13 == 0 ? 4 : sizeof(double));
        std::memcpy(bytes.data(), &value, bytes.size());
        outcome.values = {bytes};
        return outcome;
    }
};

struct LoopRun {
    MemorySink sink;
    RankStats stats;
};

// Runs the flaky kind over 500 tasks with the dynamic schedule on every rank.
LoopRun run_flaky(int retries, const std::vector<bool>* committed, const std::atomic<bool>* stop)
{
    const auto spec = job::parse_job("flaky.yaml", "task: noop\ndata: {items: 500, chunk: 1}\n", {}, {"noop"});
    const FlakyKind kind;
    LoopRun run;
    testing::LoopRunOptions options;
    options.retries = retries;
    options.committed = committed;
    options.stop = stop;
    run.stats = testing::run_loop(spec, kind, run.sink, options).stats;
    return run;
}

std::uint64_t sum_over_ranks(std::uint64_t mine)
{
    return collectives::mpi::world()->allreduce_value<std::uint64_t>(mine, collectives::ReduceOp::sum);
}

TEST(RankLoopRetries, FailedTasksAreRecordedAndOthersContinue)
{
    const int retries = 0;

    const auto run = run_flaky(retries, nullptr, nullptr);

    for (const auto& record : run.sink.records) {
        const auto id = record.task_id;
        const bool fails = id % 7 == 0 || id % 5 == 0 || id % 11 == 0 || id % 13 == 0;
        EXPECT_EQ(record.status, fails ? io::TaskStatus::failed : io::TaskStatus::ok) << "task " << id;
        EXPECT_EQ(record.attempts, 1) << "task " << id;
        if (id % 7 == 0 || id % 5 == 0) EXPECT_EQ(record.exit_code, 7) << "task " << id;
    }
    EXPECT_EQ(run.stats.ok + run.stats.failed, run.sink.records.size());
    EXPECT_EQ(sum_over_ranks(run.sink.records.size()), 500u);
}

TEST(RankLoopRetries, RetriesRecordTheAttemptCount)
{
    const int retries = 2;

    const auto run = run_flaky(retries, nullptr, nullptr);

    for (size_t i = 0; i < run.sink.records.size(); ++i) {
        const auto& record = run.sink.records[i];
        const auto id = record.task_id;
        if (id % 7 == 0 || id % 13 == 0) {
            EXPECT_EQ(record.status, io::TaskStatus::failed) << "task " << id;
            EXPECT_EQ(record.attempts, 3) << "task " << id;
            EXPECT_TRUE(run.sink.values[i].empty()) << "task " << id;
        } else if (id % 5 == 0 || id % 11 == 0) {
            EXPECT_EQ(record.status, io::TaskStatus::ok) << "task " << id;
            EXPECT_EQ(record.attempts, 2) << "task " << id;
        } else {
            EXPECT_EQ(record.status, io::TaskStatus::ok) << "task " << id;
            EXPECT_EQ(record.attempts, 1) << "task " << id;
        }
    }
    std::uint64_t expected_failed = 0;
    for (std::uint64_t id = 0; id < 500; ++id) expected_failed += id % 7 == 0 || id % 13 == 0 ? 1 : 0;
    EXPECT_EQ(sum_over_ranks(run.stats.failed), expected_failed);
    EXPECT_EQ(sum_over_ranks(run.sink.records.size()), 500u);
}

TEST(RankLoopRetries, FailuresKeepTheirMessages)
{
    const int retries = 0;

    const auto run = run_flaky(retries, nullptr, nullptr);

    for (const auto& failure : run.stats.failures) {
        if (failure.task_id % 7 == 0) {
            EXPECT_EQ(failure.message, "flaky");
        } else if (failure.task_id % 11 == 0 && failure.task_id % 5 != 0) {
            EXPECT_NE(failure.message.find("thrown by the task"), std::string::npos) << failure.message;
        } else if (failure.task_id % 13 == 0 && failure.task_id % 5 != 0) {
            EXPECT_NE(failure.message.find("'value'"), std::string::npos) << failure.message;
        }
    }
}

TEST(RankLoopRetries, CommittedTasksAreSkippedOnResume)
{
    std::vector<bool> committed(500, false);
    for (size_t id = 0; id < 500; id += 2) committed[id] = true;

    const auto run = run_flaky(0, &committed, nullptr);

    for (const auto& record : run.sink.records) EXPECT_EQ(record.task_id % 2, 1u) << "task " << record.task_id;
    EXPECT_EQ(sum_over_ranks(run.sink.records.size()), 250u);
    EXPECT_EQ(sum_over_ranks(run.stats.already_done), 250u);
}

TEST(RankLoopRetries, StoppedLoopRecordsNothingMore)
{
    const std::atomic<bool> stop{true};

    const auto run = run_flaky(0, nullptr, &stop);

    EXPECT_TRUE(run.sink.records.empty());
    EXPECT_GE(run.sink.commits, 1);
}

}  // namespace
}  // namespace shardrun::run
