// Moves of unstarted ids between nodes (issue 36), with every rank posing as its own node (the
// claim service on rank 0, asks and answers by message), at 1, 2 and 4 ranks: a node that runs
// dry gets ids of the node that will finish last; nothing runs twice or is lost, also when
// several dry nodes ask at once, when the asked node is itself asking, and when it is busy in
// a task (it answers from its next claim or its watcher's tick).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "collectives/claims/work_counters.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/loop/work_source.hpp"
#include "tests/support/mpi_world.hpp"

namespace shardrun::run {
namespace {

using collectives::WorkCounters;
using shardrun::testing::world_rank;
using shardrun::testing::world_size;

struct Ran {
    std::vector<std::uint64_t> ids;
    std::uint64_t moved_in = 0;
};

// Runs every id of [first, last) through a dynamic source on this rank, each task taking
// `seconds(rank, k)` (slept for real, k counting this rank's tasks), while a watcher thread
// ticks stop_level() every 20 ms as the runner's does.
Ran run_tasks(std::uint64_t first, std::uint64_t last, double (*seconds)(int rank, int k))
{
    const auto world = collectives::mpi::world();
    const auto node = world->split(world->rank(), 0);  // every rank its own node
    WorkCounters counters(*world, *node, true);
    std::atomic<bool> stop{false};
    std::thread watcher([&] {
        while (!stop.load()) {
            counters.stop_level();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    const auto layout = placement::group_layout(world_rank(), world_size(), 1);
    const auto source = make_work_source(job::ScheduleSpec{}, {first, last}, layout, counters);
    Ran ran;
    int k = 0;
    for (auto batch = source->next(); batch.count > 0; batch = source->next()) {
        EXPECT_EQ(batch.count, 1u);
        ran.ids.push_back(batch.first);
        const double took = seconds(world_rank(), k++);
        if (took > 0) std::this_thread::sleep_for(std::chrono::duration<double>(took));
        source->task_finished(std::max(took, 1e-5));
    }
    counters.stop_claiming();
    stop = true;
    watcher.join();
    ran.moved_in = counters.moved_in();
    counters.finish();
    return ran;
}

// Every id of [first, last) ran exactly once across the ranks (checked on rank 0).
void expect_each_once(const Ran& ran, std::uint64_t first, std::uint64_t last)
{
    const auto all = shardrun::testing::gather_on_rank0(ran.ids);
    if (world_rank() != 0) return;
    auto sorted = all;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::uint64_t> expected(last - first);
    std::iota(expected.begin(), expected.end(), first);
    EXPECT_EQ(sorted, expected) << "an id ran twice or never";
}

std::vector<std::uint64_t> counts_on_rank0(std::uint64_t mine)
{
    return shardrun::testing::gather_on_rank0(std::vector<std::uint64_t>{mine});
}

// The last rank's node takes 50 ms a task, the others' 2 ms (long enough that every rank has
// claimed before the numbers run out, however late it started): the dry nodes take its
// unstarted ids, so it runs few.
TEST(NodeMoves, ASlowNodeGivesItsUnstartedIdsToDryNodes)
{
    const auto ran = run_tasks(0, 600, [](int rank, int) { return rank == world_size() - 1 ? 0.05 : 0.002; });
    expect_each_once(ran, 0, 600);
    const auto ran_counts = counts_on_rank0(ran.ids.size());
    const auto moved = counts_on_rank0(ran.moved_in);
    if (world_rank() == 0 && world_size() > 1) {
        const auto slow = ran_counts.back();
        // Its claim block of before held 600 / (2 x ranks) ids: at 2 ranks 150, at 4 75.
        EXPECT_LE(slow, 30u) << "the slow node kept its block: ids did not move to the dry nodes";
        EXPECT_GT(std::accumulate(moved.begin(), moved.end(), std::uint64_t{0}), 0u);
        EXPECT_EQ(moved.back(), 0u) << "the slow node took ids from faster ones";
    }
    collectives::mpi::world()->barrier();
}

// A node whose first task is long has no measurement when the others run dry: it gives its
// whole open block away at once and keeps what its claimer started.
TEST(NodeMoves, ANodeWithNoMeasurementGivesItsOpenBlockAway)
{
    const auto ran = run_tasks(0, 400, [](int rank, int k) { return rank == world_size() - 1 && k == 0 ? 0.6 : 0.0; });
    expect_each_once(ran, 0, 400);
    const auto ran_counts = counts_on_rank0(ran.ids.size());
    if (world_rank() == 0 && world_size() > 1) {
        EXPECT_LE(ran_counts.back(), 3u) << "the node with no measurement kept its block";
    }
    collectives::mpi::world()->barrier();
}

// Every node slow by turns and all of them dry at about the same time: many asks cross, asked
// nodes are asking themselves, answers come from the watcher while a task sleeps.
TEST(NodeMoves, CrossingAsksLoseAndRepeatNothing)
{
    for (int round = 0; round < 3; ++round) {
        const std::uint64_t first = 1000 * static_cast<std::uint64_t>(round);
        const auto ran = run_tasks(first, first + 500, [](int rank, int k) {
            return ((rank + k) % 7 == 0) ? 0.004 * (1 + rank) : ((k % 3 == 0) ? 0.0005 : 0.0);
        });
        expect_each_once(ran, first, first + 500);
    }
    collectives::mpi::world()->barrier();
}

// Fewer ids than ranks: most nodes run dry at once and nothing is left to move.
TEST(NodeMoves, FewerIdsThanNodes)
{
    const auto ran = run_tasks(7, 9, [](int, int) { return 0.01; });
    expect_each_once(ran, 7, 9);
    collectives::mpi::world()->barrier();
}

}  // namespace
}  // namespace shardrun::run
