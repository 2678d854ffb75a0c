// The claim service's refill grant (collectives/claims/claim_policy): one claim number per
// claimer, fewer for a node much slower than the job's mean.
#include "collectives/claims/claim_policy.hpp"

#include <gtest/gtest.h>

namespace shardrun::collectives {
namespace {

TEST(RefillGrant, OnePerClaimerWhileSpeedsAreUnknown)
{
    const auto grant = refill_grant(64);

    EXPECT_EQ(grant, 64u);
    EXPECT_EQ(refill_grant(0), 1u);
    EXPECT_EQ(refill_grant(64, 0.0, 1.0), 64u);
    EXPECT_EQ(refill_grant(64, 1.0, 0.0), 64u);
}

TEST(RefillGrant, ASlowNodeGetsFewerAndNoNodeMore)
{
    const auto slow = refill_grant(64, 10.0, 1.0);

    EXPECT_EQ(slow, 6u);                        // 64 x 1 / 10, rounded
    EXPECT_EQ(refill_grant(64, 1000.0, 1.0), 1u);
    EXPECT_EQ(refill_grant(64, 0.1, 1.0), 64u);  // a fast node refills more often instead
    EXPECT_EQ(refill_grant(64, 1.9, 1.0), 64u);  // within 2 x of the mean: alike
}

TEST(NodeSpeeds, ClaimerWeightedMeanOfTheLatestReports)
{
    NodeSpeeds speeds;

    speeds.note(3, 4, 1.0);
    speeds.note(5, 12, 3.0);
    speeds.note(7, 8, 0.0);  // not measured yet: left out
    const double both = speeds.mean_seconds_per_id();
    speeds.note(5, 12, 1.0);  // a node's newer report replaces its older one

    EXPECT_DOUBLE_EQ(both, (4 * 1.0 + 12 * 3.0) / 16);
    EXPECT_DOUBLE_EQ(speeds.mean_seconds_per_id(), 1.0);
    EXPECT_DOUBLE_EQ(NodeSpeeds().mean_seconds_per_id(), 0.0);
}

}  // namespace
}  // namespace shardrun::collectives
