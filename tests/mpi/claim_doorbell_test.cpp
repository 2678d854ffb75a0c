// The claim service's doorbell (run at 1, 2, 4 ranks in the work counters' target): a ring from
// any rank reaches rank 0's socket, and the service still hands out every claim once without
// it (SHARDRUN_CLAIM_DOORBELL=0, the naps of before). No timing is asserted: the waits are
// long deadlines, not measurements.
#include "collectives/claims/claim_doorbell.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "collectives/claims/work_counters.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "tests/support/mpi_world.hpp"

namespace shardrun::collectives {
namespace {

using shardrun::testing::world_rank;
using shardrun::testing::world_size;

TEST(ClaimDoorbell, EveryRanksRingReachesRankZero)
{
    const auto world = mpi::world();
    ClaimDoorbell doorbell(*world, true);
    ASSERT_TRUE(doorbell.enabled()) << "no IPv4 loopback or UDP socket on this host";
    world->barrier();
    doorbell.ring();  // rank 0 rings itself too, as request_stop() does
    world->barrier();
    if (world_rank() == 0) {
        // Every ring waiting is taken in by the first wait; a minute is a deadline, not a measure.
        EXPECT_TRUE(doorbell.wait(std::chrono::minutes(1)));
    }
    world->barrier();
}

TEST(ClaimDoorbell, TurnedOffItOnlySleeps)
{
    const auto world = mpi::world();
    ClaimDoorbell doorbell(*world, false);
    EXPECT_FALSE(doorbell.enabled());
    doorbell.ring();
    if (world_rank() == 0) EXPECT_FALSE(doorbell.wait(std::chrono::microseconds(100)));
    world->barrier();
}

// Every rank its own node: each claim a refill by message, answered by the service's naps.
TEST(ClaimDoorbell, WithoutItTheServiceStillHandsOutEveryClaimOnce)
{
    const auto world = mpi::world();
    setenv("SHARDRUN_CLAIM_DOORBELL", "0", 1);
    const auto alone = world->split(world->rank(), 0);
    std::vector<std::uint64_t> mine;
    {
        WorkCounters counters(*world, *alone, true);
        for (int i = 0; i < 50; ++i) mine.push_back(counters.next_claim());
        counters.finish();
    }
    unsetenv("SHARDRUN_CLAIM_DOORBELL");
    const auto all = shardrun::testing::gather_on_rank0(mine);
    if (world_rank() == 0) {
        auto sorted = all;
        std::sort(sorted.begin(), sorted.end());
        std::vector<std::uint64_t> expected(50 * static_cast<size_t>(world_size()));
        std::iota(expected.begin(), expected.end(), 0);
        EXPECT_EQ(sorted, expected);
    }
    world->barrier();
}

}  // namespace
}  // namespace shardrun::collectives
