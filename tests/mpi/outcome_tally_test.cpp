// WorkCounters' job-wide outcome tally (collectives/claims/outcome_tally.cpp), at 1, 2 and 4
// ranks, on one node (shared memory) and with every rank posing as its own node (outcomes by
// message to the claim service on rank 0); and FailureBudget on top of it: the job stops
// within fail_fast plus the tasks running elsewhere, however many ranks fail at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "collectives/claims/work_counters.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/run/loop/failure_budget.hpp"
#include "tests/support/mpi_world.hpp"

namespace shardrun::run {
namespace {

using collectives::WorkCounters;
using shardrun::testing::world_rank;
using shardrun::testing::world_size;

std::unique_ptr<collectives::Communicator> node_of(collectives::Communicator& world, bool one_rank_nodes)
{
    return one_rank_nodes ? world.split(world.rank(), 0) : collectives::mpi::split_by_node(world);
}

class OutcomeTallyModes : public ::testing::TestWithParam<bool> {};

TEST_P(OutcomeTallyModes, FailuresAddUpOverRanks)
{
    const auto world = collectives::mpi::world();
    const auto node = node_of(*world, GetParam());
    WorkCounters counters(*world, *node, true);

    for (int i = 0; i < 3; ++i) counters.add_outcome(false, 127);
    counters.finish();  // every rank's messages reached the service before its final
    world->barrier();
    const auto tally = counters.read_outcomes();

    if (world_rank() == 0) {
        EXPECT_EQ(tally.failed, 3 * world_size());
        EXPECT_EQ(tally.leading, 3 * world_size());
        EXPECT_EQ(tally.leading_code, 127);
        EXPECT_TRUE(tally.one_code);
        EXPECT_EQ(tally.ok, 0);
    }
    world->barrier();
}

TEST_P(OutcomeTallyModes, AnOkEndsTheLeadingFailuresAndOtherCodesShow)
{
    const auto world = collectives::mpi::world();
    const auto node = node_of(*world, GetParam());
    WorkCounters counters(*world, *node, true);

    if (world_rank() == 0) {
        counters.add_outcome(false, 1);
        counters.add_outcome(false, 2);
        counters.add_outcome(true, 0);
        counters.add_outcome(false, 3);
    }
    counters.finish();
    world->barrier();
    const auto tally = counters.read_outcomes();

    if (world_rank() == 0) {
        EXPECT_EQ(tally.ok, 1);
        EXPECT_EQ(tally.failed, 3);
        EXPECT_EQ(tally.leading, 2) << "a failure after the first ok is not a leading one";
        EXPECT_EQ(tally.leading_code, 1);
        EXPECT_FALSE(tally.one_code);
    }
    world->barrier();
}

INSTANTIATE_TEST_SUITE_P(NodeModes, OutcomeTallyModes, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "one_rank_nodes" : "one_node"; });

// Every rank fails tasks as fast as it can, each reading the budget before its next one (as the
// rank loop does): the job records at most fail_fast failures plus one in flight per other rank.
TEST(FailureBudgetAcrossRanks, StopsWithinFailFastPlusTheRunningTasks)
{
    const auto world = collectives::mpi::world();
    const auto node = collectives::mpi::split_by_node(*world);
    WorkCounters counters(*world, *node, true);
    FailureBudget budget({.max_failures = 0, .fail_fast = 5});
    budget.bind(counters);

    world->barrier();
    while (!budget.exhausted()) budget.record(false, 127);
    counters.finish();
    world->barrier();
    const auto tally = counters.read_outcomes();

    EXPECT_GE(tally.failed, 5);
    EXPECT_LE(tally.failed, 5 + world_size() - 1);
    EXPECT_EQ(counters.stop_level(), collectives::StopLevel::drain) << "the decision is latched as the job's drain";
    const auto reasons = collectives::allgather_strings(*world, budget.reason());
    bool named = false;
    for (const auto& reason : reasons) {
        if (reason.empty()) continue;
        named = true;
        EXPECT_NE(reason.find("the first 5 tasks to finish across the job all failed with exit code 127 (program not "
                              "found; fail_fast: 5"),
                  std::string::npos)
            << reason;
    }
    EXPECT_TRUE(named);
}

TEST(FailureBudgetAcrossRanks, MaxFailuresCountsEveryRanksFailures)
{
    const auto world = collectives::mpi::world();
    const auto node = collectives::mpi::split_by_node(*world);
    WorkCounters counters(*world, *node, true);
    FailureBudget budget({.max_failures = 3, .fail_fast = 0});
    budget.bind(counters);

    // Each rank fails once (different codes, no fail_fast), then rank 0 fails until the budget is spent.
    budget.record(false, world_rank() + 1);
    world->barrier();
    int own = 0;
    if (world_rank() == 0) {
        while (!budget.exhausted()) {
            budget.record(false, 1);
            ++own;
        }
    }
    world->barrier();

    if (world_rank() == 0) EXPECT_EQ(own, std::max(0, 3 - world_size())) << "the others' failures did not count";
    EXPECT_TRUE(budget.exhausted()) << "a rank that failed once reads the job's 3";
    counters.finish();
}

}  // namespace
}  // namespace shardrun::run
