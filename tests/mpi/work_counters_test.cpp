// The dynamic schedule's claim counter and the progress counts (run at 1, 2, 4 ranks), on one
// node (shared memory only) and with every rank posing as its own node (the claim service on
// rank 0, refills by message), which is how several nodes use it.
#include "collectives/claims/work_counters.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/loop/progress.hpp"
#include "runner/run/loop/rank_loop.hpp"
#include "runner/run/loop/work_source.hpp"
#include "runner/tasks/noop_kind.hpp"
#include "tests/support/memory_sink.hpp"
#include "tests/support/mpi_world.hpp"
#include "tests/support/rank_loop_env.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::run {
namespace {

// The node communicator for a mode: the real node, or every rank alone (as if on its own node).
std::unique_ptr<collectives::Communicator> node_of(collectives::Communicator& world, bool one_rank_nodes)
{
    return one_rank_nodes ? world.split(world.rank(), 0) : collectives::mpi::split_by_node(world);
}

using collectives::WorkCounters;
using shardrun::testing::world_rank;
using shardrun::testing::world_size;

// Every rank's values on rank 0, concatenated (empty elsewhere).
std::vector<std::uint64_t> gather_all(const std::vector<std::uint64_t>& mine)
{
    return shardrun::testing::gather_on_rank0(mine);
}

// A directory every rank knows, made by rank 0 (for signals that must not go through MPI).
std::string shared_temp_dir()
{
    std::vector<char> name(256, '\0');
    if (world_rank() == 0) {
        const auto made = shardrun::testing::make_temp_dir("shardrun_counters_");
        std::copy_n(made.begin(), std::min<size_t>(made.size(), 255), name.begin());
    }
    collectives::mpi::world()->broadcast(std::span<char>(name), 0);
    return name.data();
}

size_t files_in(const std::string& dir)
{
    size_t count = 0;
    std::error_code ignored;
    for (auto it = std::filesystem::directory_iterator(dir, ignored); it != std::filesystem::directory_iterator(); ++it) {
        ++count;
    }
    return count;
}

class WorkCountersModes : public ::testing::TestWithParam<bool> {};

TEST_P(WorkCountersModes, ClaimNumbersAreHandedOutOnceAcrossRanks)
{
    const auto world = collectives::mpi::world();
    const auto node = node_of(*world, GetParam());
    WorkCounters counters(*world, *node, true);
    std::vector<std::uint64_t> mine;

    for (int i = 0; i < 100; ++i) mine.push_back(counters.next_claim());
    counters.finish();

    const auto all = gather_all(mine);
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
    if (GetParam() && world_size() > 1) EXPECT_EQ(counters.refills(), 100u) << "one claimer per node: one claim a refill";
    if (world_rank() == 0) {
        auto sorted = all;
        std::sort(sorted.begin(), sorted.end());
        std::vector<std::uint64_t> expected(100 * static_cast<size_t>(world_size()));
        std::iota(expected.begin(), expected.end(), 0);
        EXPECT_EQ(sorted, expected);
    }
    world->barrier();
}

// The dynamic source of issue 25: claims sized from the claimant's own task times, ids handed
// out one at a time from its node slot, take-back on a node; every id of the range once.
TEST_P(WorkCountersModes, AdaptiveClaimsHandOutEveryIdOnce)
{
    const auto world = collectives::mpi::world();
    const auto node = node_of(*world, GetParam());
    WorkCounters counters(*world, *node, true);
    const auto layout = placement::group_layout(world_rank(), world_size(), 1);
    const auto source = make_work_source(job::ScheduleSpec{}, {5, 1005}, layout, counters);
    std::vector<std::uint64_t> mine;

    // Rank 0 reports slow tasks (it should claim one at a time), the others fast ones.
    for (auto batch = source->next(); batch.count > 0; batch = source->next()) {
        ASSERT_EQ(batch.count, 1u);
        mine.push_back(batch.first);
        source->task_finished(world_rank() == 0 ? 1.0 : 1e-4);
    }
    counters.finish();

    const auto all = gather_all(mine);
    if (world_rank() == 0) {
        auto sorted = all;
        std::sort(sorted.begin(), sorted.end());
        std::vector<std::uint64_t> expected(1000);
        std::iota(expected.begin(), expected.end(), 5);
        EXPECT_EQ(sorted, expected);
    }
    world->barrier();
}

TEST_P(WorkCountersModes, ARankThatStopsGivesBackWhatItClaimedAndDidNotStart)
{
    const auto world = collectives::mpi::world();
    const auto node = node_of(*world, GetParam());
    WorkCounters counters(*world, *node, true);
    const auto layout = placement::group_layout(world_rank(), world_size(), 1);
    const auto source = make_work_source(job::ScheduleSpec{}, {0, 100000}, layout, counters);

    const auto first = source->next();  // one id, until a task has ended
    source->task_finished(1e-6);        // then 0.1 s of 1 us tasks: a large claim
    const auto second = source->next();
    const auto rest = source->release();
    counters.finish();

    EXPECT_EQ(first.count, 1u);
    EXPECT_EQ(second.count, 1u);
    EXPECT_GT(rest.count, 0u);
    EXPECT_EQ(rest.first, second.first + 1);
    EXPECT_EQ(source->release().count, 0u);
    world->barrier();
}

TEST_P(WorkCountersModes, ProgressAddsUpOverRanks)
{
    const auto world = collectives::mpi::world();
    const auto node = node_of(*world, GetParam());
    WorkCounters counters(*world, *node, true);

    counters.add_progress({2, 1, 0});
    counters.finish();
    world->barrier();
    const auto counts = counters.read_progress();

    if (world_rank() == 0) {
        EXPECT_EQ(counts.ok, 2 * world_size());
        EXPECT_EQ(counts.failed, world_size());
        EXPECT_EQ(counts.running, 0);
    }
    world->barrier();
}

// Rank 0 runs the claim service. While it is busy (here: waiting without any MPI call until
// the others say they are done, as a long task would), the other ranks must still be able to
// claim and finish every task of a dynamic schedule.
TEST_P(WorkCountersModes, ClaimsProgressWhileRankZeroIsBusy)
{
    const auto dir = shared_temp_dir();
    const auto spec = job::parse_job(
        "busy.yaml", "task: noop\nsweep: {a: [1, 2, 3]}\ndata: {items: 1000, chunk: 3}\nschedule: dynamic\n", {},
        {"noop"});
    const tasks::NoopKind kind;
    const auto task_count = job::TaskSpace::of(spec, spec.data.items).size();
    MemorySink sink;
    bool others_finished = true;
    testing::LoopRunOptions options;
    options.one_rank_nodes = GetParam();
    options.before_run = [&] {
        if (world_rank() != 0 || world_size() == 1) return;
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (files_in(dir) < static_cast<size_t>(world_size() - 1) && std::chrono::steady_clock::now() < give_up) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        others_finished = files_in(dir) == static_cast<size_t>(world_size() - 1);
    };
    options.after_run = [&] {
        if (world_rank() != 0) std::ofstream(dir + "/rank" + std::to_string(world_rank())) << "done\n";
    };

    testing::run_loop(spec, kind, sink, options);

    std::vector<std::uint64_t> ids;
    for (const auto& record : sink.records) ids.push_back(record.task_id);
    auto all = gather_all(ids);
    if (world_rank() == 0) {
        EXPECT_TRUE(others_finished) << "the other ranks could not finish while rank 0 was busy";
        if (world_size() > 1) EXPECT_TRUE(sink.records.empty()) << "rank 0 ran " << sink.records.size() << " tasks";
        std::sort(all.begin(), all.end());
        std::vector<std::uint64_t> expected(task_count);
        std::iota(expected.begin(), expected.end(), 0);
        EXPECT_EQ(all, expected);
        std::filesystem::remove_all(dir);
    }
}

INSTANTIATE_TEST_SUITE_P(NodeModes, WorkCountersModes, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "one_rank_nodes" : "one_node"; });

}  // namespace
}  // namespace shardrun::run
