// HeartbeatRing (run at 1, 2, 4 ranks): a rank that is busy, even for several timeouts, is
// never reported; leaving at different times ends the ring without a report or a hang. The
// report itself (a SIGSTOP'd rank) is tested end to end in tests/cli/faults/fault_matrix_test.py.
#include "collectives/liveness/heartbeat_ring.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "collectives/mpi/mpi_communicator.hpp"

namespace shardrun::collectives {
namespace {

std::vector<std::string> names(int size)
{
    std::vector<std::string> all;
    for (int r = 0; r < size; ++r) all.push_back("rank " + std::to_string(r) + " on test-host");
    return all;
}

TEST(HeartbeatRing, ABusyRankIsNotSilent)
{
    const auto world = mpi::world();
    std::atomic<int> reports{0};
    {
        HeartbeatRing ring(*world, 0.2, names(world->size()), mpi::threads_may_call_mpi(),
                           [&](const std::string&) { ++reports; });
        // The last rank computes for five timeouts without calling MPI; the others wait in a barrier.
        if (world->rank() == world->size() - 1) std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        world->barrier();
        // Ranks leave one after another, 100 ms apart.
        std::this_thread::sleep_for(std::chrono::milliseconds(100 * world->rank()));
        ring.leave();
    }
    EXPECT_EQ(reports.load(), 0);
    world->barrier();
}

TEST(HeartbeatRing, IsInertWhenOff)
{
    const auto world = mpi::world();
    std::atomic<int> reports{0};
    HeartbeatRing ring(*world, 0, names(world->size()), mpi::threads_may_call_mpi(),
                       [&](const std::string&) { ++reports; });
    world->barrier();
    EXPECT_EQ(reports.load(), 0);
}

}  // namespace
}  // namespace shardrun::collectives
