// The scheduler simulation of benchmarks/scheduler on cases small enough to work out by hand.
#include "scheduler_sim.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "claim_path.hpp"
#include "task_durations.hpp"

namespace shardrun::bench::scheduler {
namespace {

const std::vector<Schedule> every_schedule = {{Policy::block}, {Policy::cyclic}, {Policy::dynamic, 1, 0},
                                              {Policy::dynamic, 4, 0}, {Policy::dynamic, 1, 2}};

TEST(SchedulerSim, OneRankWithEqualDurationsIsFullyEfficient)
{
    const TaskDurations durations(std::vector<double>(10, 1.0));

    for (const auto& schedule : every_schedule) {
        const auto result = simulate(durations, {1, 1}, schedule, {});

        EXPECT_DOUBLE_EQ(result.wall, 10.0);
        EXPECT_DOUBLE_EQ(result.efficiency(1), 1.0);
    }
}

TEST(SchedulerSim, FewerTasksThanRanksLeaveTheRestIdle)
{
    const TaskDurations durations(std::vector<double>(3, 2.0));

    for (const auto& schedule : {Schedule{Policy::block}, Schedule{Policy::cyclic}, Schedule{Policy::dynamic, 1, 0}}) {
        const auto result = simulate(durations, {8, 8}, schedule, {});

        EXPECT_EQ(result.tasks, 3u);
        EXPECT_DOUBLE_EQ(result.wall, 2.0);
        EXPECT_DOUBLE_EQ(result.efficiency(8), 3.0 / 8.0);
    }
}

TEST(SchedulerSim, EveryIdRunsOnceUnderEverySchedule)
{
    const DurationLaw law{DurationLaw::Kind::lognormal, 1.0, 1.5, 100, 7};
    const TaskDurations durations(law, 1013);
    const ClaimCosts costs{1e-7, 5e-6, 2e-6, 2e-5, 1e-3, 8e-5, 2e-7};

    for (const auto& schedule : every_schedule) {
        const auto result = simulate(durations, {7, 3}, schedule, costs);

        EXPECT_EQ(result.tasks, 1013u);
        EXPECT_NEAR(result.busy, durations.total(), 1e-9 * durations.total());
        EXPECT_GE(result.wall, std::max(durations.total() / 7, durations.longest()));
    }
}

TEST(SchedulerSim, RefillsCostARoundTripAndWaitForTheService)
{
    // Two one-rank nodes, two 1 s tasks; each claim refills a pool of one number: rank 0 is
    // answered at 0.2 (back at 0.3), rank 1 waits for it (answered at 0.3, back at 0.4); the
    // empty claims after the tasks come back at 1.6 and 1.7.
    const TaskDurations durations(std::vector<double>(2, 1.0));
    ClaimCosts costs;
    costs.round_trip = 0.2;
    costs.service = 0.1;

    const auto result = simulate(durations, {2, 1}, {Policy::dynamic, 1, 0}, costs);

    EXPECT_EQ(result.claims, 2u);
    EXPECT_EQ(result.refills, 4u);
    EXPECT_DOUBLE_EQ(result.wall, 1.7);
    EXPECT_NEAR(result.service_busy, 0.4, 1e-12);
}

TEST(SchedulerSim, OneNodeNeedsNoClaimService)
{
    const TaskDurations durations(std::vector<double>(100, 1.0));
    ClaimCosts costs;
    costs.round_trip = 1.0;

    const auto result = simulate(durations, {4, 64}, {Policy::dynamic, 1, 0}, costs);

    EXPECT_EQ(result.refills, 0u);
    EXPECT_DOUBLE_EQ(result.wall, 25.0);
}

TEST(SchedulerSim, ShrinkingClaimsEndWithSingleTasks)
{
    const TaskDurations durations(std::vector<double>(10000, 1.0));

    const auto fine = simulate(durations, {10, 10}, {Policy::dynamic, 1, 0}, {});
    const auto coarse = simulate(durations, {10, 10}, {Policy::dynamic, 16, 0}, {});

    EXPECT_DOUBLE_EQ(fine.last_claim_tasks, 1.0);
    EXPECT_GT(coarse.last_claim_tasks, 10.0);
    EXPECT_LT(fine.claims, 10000u);
}

TEST(ClaimServiceModel, AnIdleServiceSeesARequestWhenANapEnds)
{
    ClaimCosts costs;
    costs.nap_min = 1;
    costs.nap_max = 4;
    ClaimServiceModel service(costs);

    const double first = service.answer(5.5);    // naps end at 1, 3, 7
    const double second = service.answer(27.0);  // from 7: 8, 10, then every 4: 14 ... 30
    const double queued = service.answer(29.0);  // waiting when the last answer left

    EXPECT_DOUBLE_EQ(first, 7.0);
    EXPECT_DOUBLE_EQ(second, 30.0);
    EXPECT_DOUBLE_EQ(queued, 30.0);
}

TEST(ClaimLoop, RateOfBackToBackRefills)
{
    ClaimCosts costs;
    costs.round_trip = 0.2;
    costs.service = 0.1;

    const double rate = simulate_claim_loop({2, 1}, 1, costs);  // done at 0.3 and 0.4

    EXPECT_DOUBLE_EQ(rate, 2 / 0.4);
}

TEST(AdaptiveClaims, EveryIdRunsOnceOnRanksOfDifferentSpeeds)
{
    const DurationLaw law{DurationLaw::Kind::lognormal, 1.0, 1.5, 100, 7};
    const TaskDurations durations(law, 1013);
    const ClaimCosts costs{1e-7, 5e-6, 2e-6, 2e-5, 1e-3, 8e-5, 2e-7};
    Schedule adaptive{Policy::dynamic, 1, 0};
    adaptive.adaptive = true;

    for (const auto& cluster : {Cluster{7, 3}, Cluster{7, 3, rank_slowdowns(7, 3, 10.0, 0.5, 1)}, Cluster{7, 7}}) {
        const auto result = simulate(durations, cluster, adaptive, costs);

        EXPECT_EQ(result.tasks, 1013u);
        EXPECT_NEAR(result.busy, durations.total(), 1e-9 * durations.total());
    }
}

TEST(AdaptiveClaims, ASlowRankOfOneNodeRunsOneTaskWhereWholeBlocksGaveItDozens)
{
    // The issue-25 case: 300 tasks on 2 ranks of one node, rank 0's 1 s, rank 1's 3 ms.
    const TaskDurations durations(std::vector<double>(300, 0.003));
    const Cluster cluster{2, 2, {1.0 / 0.003, 1.0}};
    Schedule whole{Policy::dynamic, 1, 0};
    Schedule adaptive = whole;
    adaptive.adaptive = true;

    const auto before = simulate(durations, cluster, whole, {});
    const auto after = simulate(durations, cluster, adaptive, {});
    const auto one_each = simulate(durations, cluster, {Policy::dynamic, 1, 1}, {});

    EXPECT_GT(before.wall, 30.0);  // rank 0's first block: 38 tasks of 1 s
    EXPECT_NEAR(after.wall, 1.0, 1e-9);
    EXPECT_NEAR(one_each.wall, 1.0, 1e-9);
}

TEST(NodeMoves, ASlowNodeGivesItsIdsToDryNodesAsTheMaxClaimOneRunDoes)
{
    // Issue 36's case: 4 nodes of 2 ranks, 300 tasks, the first node's 1 s, the others' 10 ms.
    const TaskDurations durations(std::vector<double>(300, 0.01));
    std::vector<double> slowdown(8, 1.0);
    slowdown[0] = slowdown[1] = 100.0;
    const Cluster cluster{8, 2, slowdown};
    Schedule adaptive{Policy::dynamic, 1, 0};
    adaptive.adaptive = true;
    Schedule within = adaptive;
    within.across_nodes = false;

    const auto moves = simulate(durations, cluster, adaptive, {});
    const auto before = simulate(durations, cluster, within, {});

    EXPECT_EQ(moves.tasks, 300u);
    EXPECT_GT(moves.moved, 0u);
    EXPECT_GT(before.wall, 5.0);  // the slow node ran its block, a second a task
    EXPECT_LT(moves.wall, 2.1);   // at most 2 tasks on each slow rank
}

TEST(NodeMoves, WorkOfOneSpeedCostsNoRoundTripsBeyondClaimsWithinNodes)
{
    // benchmarks/scheduler's workload 3 at R = 1e4 (157 nodes of 64), the bench's costs: moves
    // between nodes may not add a message on work of one speed (issue 36, point 2).
    const DurationLaw law{DurationLaw::Kind::lognormal, 1.0, 1.0, 10};
    const TaskDurations durations(law, 1'000'000);
    const Cluster cluster{10000, 64};
    const ClaimCosts costs{70.4e-9, 5.7e-6, 1.43e-6, 20e-6, 1e-3, 80e-6, 0.23e-6, 0.02, 10.0};
    Schedule adaptive{Policy::dynamic, 1, 0};
    adaptive.adaptive = true;
    Schedule within = adaptive;
    within.across_nodes = false;

    const auto moves = simulate(durations, cluster, adaptive, costs);
    const auto before = simulate(durations, cluster, within, costs);

    EXPECT_EQ(moves.tasks, 1'000'000u);
    EXPECT_LE(moves.refills, before.refills);
    EXPECT_GE(moves.efficiency(10000), before.efficiency(10000) - 1e-3);
}

TEST(NodeMoves, ALostNodesIdsAreRerunElsewhereEachOnce)
{
    const DurationLaw law{DurationLaw::Kind::lognormal, 1.0, 1.0, 10, 3};
    const TaskDurations durations(law, 2000);
    Cluster cluster{16, 4};
    cluster.dead_node = 2;
    cluster.dead_at = 20.0;
    ClaimCosts costs{1e-7, 5e-6, 2e-6, 2e-5, 1e-3, 8e-5, 2e-7, 0.02, 5.0};
    Schedule adaptive{Policy::dynamic, 1, 0};
    adaptive.adaptive = true;

    const auto result = simulate(durations, cluster, adaptive, costs);

    EXPECT_EQ(result.tasks, 2000u);  // counted when they end: the lost node's running tasks ran again elsewhere
    EXPECT_GT(result.rerun, 0u);
    EXPECT_GT(result.wall, 25.0);    // nothing ends before the service gives the node up
}

TEST(AdaptiveClaims, ASizeSweepPutsTheHeavyTasksLast)
{
    DurationLaw law{DurationLaw::Kind::constant, 1.0, 1.0, 0, 1};
    law.sweep = 100;

    const TaskDurations durations(law, 101);

    EXPECT_NEAR(durations.at(0), 1.0, 1e-12);
    EXPECT_NEAR(durations.at(50), 10.0, 1e-9);
    EXPECT_NEAR(durations.at(100), 100.0, 1e-9);
}

TEST(RankSlowdowns, OneSlowNodeAndALogNormalFactor)
{
    const auto slow_node = rank_slowdowns(6, 2, 10.0, 0.0, 1);
    const auto spread = rank_slowdowns(2001, 64, 1.0, 0.5, 1);

    EXPECT_EQ(slow_node, (std::vector<double>{10, 10, 1, 1, 1, 1}));
    EXPECT_DOUBLE_EQ((Cluster{6, 2, slow_node}.capacity()), 4.2);
    auto sorted = spread;
    std::nth_element(sorted.begin(), sorted.begin() + 1000, sorted.end());
    EXPECT_NEAR(sorted[1000], 1.0, 0.05);
}

TEST(DurationLaw, DrawsDependOnSeedAndIdAlone)
{
    const DurationLaw lognormal{DurationLaw::Kind::lognormal, 2.0, 1.0, 10, 3};
    const DurationLaw pareto{DurationLaw::Kind::pareto, 0.5, 2.5, 0, 3};
    std::vector<double> draws;

    for (std::uint64_t id = 0; id < 20001; ++id) draws.push_back(lognormal.draw(id));
    std::nth_element(draws.begin(), draws.begin() + 10000, draws.end());

    EXPECT_EQ(lognormal.draw(42), lognormal.draw(42));
    EXPECT_NE(lognormal.draw(42), (DurationLaw{DurationLaw::Kind::lognormal, 2.0, 1.0, 10, 4}.draw(42)));
    EXPECT_NEAR(draws[10000], 2.0, 0.05);
    EXPECT_LE(*std::max_element(draws.begin(), draws.end()), 20.0);
    for (std::uint64_t id = 0; id < 1000; ++id) EXPECT_GE(pareto.draw(id), 0.5);
}

}  // namespace
}  // namespace shardrun::bench::scheduler
