// Every task runs exactly once across ranks, schedules and array elements (run at 1, 2, 4 ranks).
#include "runner/run/loop/rank_loop.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "runner/job/job_parser.hpp"
#include "runner/placement/placement.hpp"
#include "runner/tasks/noop_kind.hpp"
#include "tests/support/memory_sink.hpp"
#include "tests/support/mpi_world.hpp"
#include "tests/support/rank_loop_env.hpp"

namespace shardrun::run {
namespace {

using shardrun::testing::world_rank;
using shardrun::testing::world_size;

// 257 sweep points x 10 chunks = 2570 tasks.
job::JobSpec noop_job(const std::string& schedule)
{
    const std::string text = "task: noop\nsweep: {a: {range: [0, 257, 1]}}\ndata: {items: 40, chunk: 4}\nschedule: " +
                             schedule + "\nslots_per_rank: 1\n";
    return job::parse_job("mpi.yaml", text, {}, {"noop"});
}

// What this rank ran: task ids, and whether each task's value was its id.
struct Ran {
    std::vector<std::uint64_t> ids;
    int wrong_values = 0;
};

void collect(const MemorySink& sink, Ran& ran)
{
    for (size_t i = 0; i < sink.records.size(); ++i) {
        const auto id = sink.records[i].task_id;
        double value = -1;
        if (!sink.values[i].empty() && sink.values[i][0].size() == sizeof(double)) {
            std::memcpy(&value, sink.values[i][0].data(), sizeof(double));
        }
        if (value != static_cast<double>(id) || sink.records[i].status != io::TaskStatus::ok) ++ran.wrong_values;
        ran.ids.push_back(id);
    }
}

// Runs this rank's share of array element [element) with a fresh counter; adds what it ran.
void run_element(const job::JobSpec& spec, placement::IdRange element, int slots, Ran& ran)
{
    const tasks::NoopKind kind;
    MemorySink sink;
    testing::LoopRunOptions options;
    options.element = element;
    options.slots = slots;

    const auto stats = testing::run_loop(spec, kind, sink, options).stats;

    EXPECT_EQ(stats.ok, sink.records.size());
    EXPECT_EQ(stats.failed, 0u);
    EXPECT_GE(sink.commits, 1);
    collect(sink, ran);
}

// On rank 0: how often each id in [0, task_count) was run by any rank (empty elsewhere).
std::vector<int> gather_counts(const std::vector<std::uint64_t>& ids, std::uint64_t task_count)
{
    const auto all = shardrun::testing::gather_on_rank0(ids);
    std::vector<int> counts;
    if (world_rank() != 0) return counts;
    counts.assign(task_count, 0);
    for (const auto id : all) {
        if (id < task_count) {
            ++counts[id];
        } else {
            counts.push_back(-1000);  // an id outside the task space fails the check
        }
    }
    return counts;
}

int total_wrong_values(const Ran& ran)
{
    return collectives::mpi::world()->allreduce_value<std::int32_t>(ran.wrong_values, collectives::ReduceOp::sum);
}

// Ids run zero times or more than once (rank 0 only).
std::vector<std::uint64_t> not_once(const std::vector<int>& counts)
{
    std::vector<std::uint64_t> bad;
    for (size_t id = 0; id < counts.size(); ++id) {
        if (counts[id] != 1) bad.push_back(id);
    }
    return bad;
}

class RankLoop : public ::testing::TestWithParam<std::string> {};

TEST_P(RankLoop, EveryTaskRunsExactlyOnce)
{
    const auto spec = noop_job(GetParam());
    const auto task_count = job::TaskSpace::of(spec, spec.data.items).size();
    Ran ran;

    run_element(spec, {0, task_count}, 1, ran);

    const auto counts = gather_counts(ran.ids, task_count);
    EXPECT_EQ(total_wrong_values(ran), 0);
    if (world_rank() == 0) {
        EXPECT_EQ(task_count, 2570u);
        EXPECT_TRUE(not_once(counts).empty()) << not_once(counts).size() << " ids not run exactly once, first "
                                              << not_once(counts).front();
    }
}

TEST_P(RankLoop, SeveralSlotsPerRankRunEveryTaskOnce)
{
    const auto spec = noop_job(GetParam());
    const auto task_count = job::TaskSpace::of(spec, spec.data.items).size();
    Ran ran;

    run_element(spec, {0, task_count}, 3, ran);

    const auto counts = gather_counts(ran.ids, task_count);
    EXPECT_EQ(total_wrong_values(ran), 0);
    if (world_rank() == 0) {
        EXPECT_TRUE(not_once(counts).empty()) << not_once(counts).size() << " ids not run exactly once";
    }
}

TEST_P(RankLoop, TwoArrayElementsTogetherRunEveryTaskOnce)
{
    const auto spec = noop_job(GetParam());
    const auto task_count = job::TaskSpace::of(spec, spec.data.items).size();
    Ran ran;

    for (std::uint64_t element = 0; element < 2; ++element) {
        run_element(spec, placement::array_block(task_count, element, 2), 1, ran);
    }

    const auto counts = gather_counts(ran.ids, task_count);
    EXPECT_EQ(total_wrong_values(ran), 0);
    if (world_rank() == 0) {
        EXPECT_TRUE(not_once(counts).empty()) << not_once(counts).size() << " ids not run exactly once";
    }
}

TEST_P(RankLoop, ProgressCountsReachTheTaskCount)
{
    const auto spec = noop_job(GetParam());
    const tasks::NoopKind kind;
    const auto task_count = job::TaskSpace::of(spec, spec.data.items).size();
    MemorySink sink;

    const auto counts = testing::run_loop(spec, kind, sink).progress;

    EXPECT_EQ(counts.ok, static_cast<std::int64_t>(task_count));
    EXPECT_EQ(counts.failed, 0);
    EXPECT_EQ(counts.running, 0);
}

INSTANTIATE_TEST_SUITE_P(Schedules, RankLoop, ::testing::Values("static", "cyclic", "dynamic"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace shardrun::run
