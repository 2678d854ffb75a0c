#include "runner/run/rank_stats.hpp"

#include <gtest/gtest.h>

namespace shardrun::run {
namespace {

TEST(RankStats, KeepsTheFiveSlowestLongestFirst)
{
    RankStats stats;

    for (std::uint64_t id = 0; id < 10; ++id) stats.add(id, static_cast<double>(id % 7), true, 0, "");

    ASSERT_EQ(stats.slowest.size(), 5u);
    EXPECT_EQ(stats.slowest.front().first, 6.0);
    EXPECT_EQ(stats.slowest.front().second, 6u);
    for (size_t i = 1; i < stats.slowest.size(); ++i) EXPECT_GE(stats.slowest[i - 1].first, stats.slowest[i].first);
    EXPECT_EQ(stats.ok, 10u);
    EXPECT_DOUBLE_EQ(stats.busy_seconds, 0 + 1 + 2 + 3 + 4 + 5 + 6 + 0 + 1 + 2);
}

TEST(RankStats, FailuresKeepTheirExitCodeAndMessage)
{
    RankStats stats;

    stats.add(4, 0.1, false, 124, "timed out after 1 s");

    EXPECT_EQ(stats.failed, 1u);
    ASSERT_EQ(stats.failures.size(), 1u);
    EXPECT_EQ(stats.failures[0].task_id, 4u);
    EXPECT_EQ(stats.failures[0].exit_code, 124);
    EXPECT_EQ(stats.failures[0].message, "timed out after 1 s");
}

TEST(RankStats, SlowestHoldsOkTasksOnly)
{
    RankStats stats;

    stats.add(0, 0.5, true, 0, "");
    stats.add(1, 0.0, false, 127, "command not found");
    stats.add(2, 9.0, false, 124, "timed out after 9 s");

    ASSERT_EQ(stats.slowest.size(), 1u);
    EXPECT_EQ(stats.slowest.front().second, 0u);
    EXPECT_EQ(stats.failures.size(), 2u);
}

TEST(RankStats, InterruptedAttemptsCountAsBusy)
{
    RankStats stats;

    stats.add(0, 1.0, true, 0, "");
    stats.add_interrupted(1, 2.5);

    EXPECT_DOUBLE_EQ(stats.busy_seconds, 3.5);
    EXPECT_EQ(stats.interrupted, 1u);
}

}  // namespace
}  // namespace shardrun::run
