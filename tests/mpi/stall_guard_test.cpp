// StallGuard (run at 1, 2, 4 ranks): collectives complete as usual, and a member that does
// not join in time is named instead of leaving the others waiting.
#include "collectives/stall_guard.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "collectives/mpi/mpi_communicator.hpp"

namespace shardrun::collectives {
namespace {

std::vector<std::string> names(int size)
{
    std::vector<std::string> all;
    for (int r = 0; r < size; ++r) all.push_back("world rank " + std::to_string(r) + " on test-host");
    return all;
}

TEST(StallGuard, CollectivesCompleteAsUsual)
{
    const auto world = mpi::world();
    StallGuard guarded(*world, 30, names(world->size()), "group 0");

    const auto sum = guarded.allreduce_value<std::int64_t>(world->rank() + 1, ReduceOp::sum);
    const auto root = guarded.broadcast_value<std::int32_t>(world->rank() == 0 ? 7 : 0, 0);
    const auto ranks = guarded.allgather_value<std::int32_t>(world->rank());
    std::vector<float> data(8, 1.0f);
    auto request = guarded.iallreduce(std::span<float>(data), ReduceOp::avg);
    request.wait();
    guarded.barrier();

    const std::int64_t n = world->size();
    EXPECT_EQ(sum, n * (n + 1) / 2);
    EXPECT_EQ(root, 7);
    EXPECT_EQ(ranks.back(), world->size() - 1);
    EXPECT_EQ(data, std::vector<float>(8, 1.0f));
}

TEST(StallGuard, BlockingCollectivesOfGrowingAndShrinkingSizesReuseTheirCopyCorrectly)
{
    const auto world = mpi::world();
    StallGuard guarded(*world, 30, names(world->size()), "group 0");
    const std::int64_t n = world->size();
    std::vector<std::int64_t> sums;

    for (const std::size_t count : {std::size_t{3}, std::size_t{1} << 20, std::size_t{5}, std::size_t{1} << 16}) {
        std::vector<std::int64_t> mine(count), total(count, -1);
        for (std::size_t i = 0; i < count; ++i) mine[i] = static_cast<std::int64_t>(i) + world->rank();
        guarded.allreduce(std::span<const std::int64_t>(mine), std::span<std::int64_t>(total), ReduceOp::sum);
        for (std::size_t i = 0; i < count; ++i) {
            if (total[i] != n * static_cast<std::int64_t>(i) + n * (n - 1) / 2) sums.push_back(total[i]);
        }
    }

    EXPECT_TRUE(sums.empty()) << sums.size() << " wrong sums, first " << sums.front();
}

TEST(StallGuard, AMemberThatDoesNotJoinIsNamed)
{
    const auto world = mpi::world();
    const int late = world->size() - 1;
    StallGuard guarded(*world, 0.5, names(world->size()), "group 3");
    const auto started = std::chrono::steady_clock::now();
    std::string message;

    // The last rank joins 5 s late (after the deadline and the pings' grace); with one rank
    // there is nobody to wait for.
    if (world->rank() == late && world->size() > 1) std::this_thread::sleep_for(std::chrono::seconds(5));
    try {
        guarded.allreduce_value<std::int32_t>(1, ReduceOp::sum);
    } catch (const CollectiveStall& stall) {
        message = stall.what();
    }

    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (world->rank() == late) {
        EXPECT_EQ(message, "") << "the late member itself finds everyone there";
    } else {
        EXPECT_LT(waited, 4.5) << "the stall was not detected within deadline + ping grace";
        EXPECT_NE(message.find("allreduce #1 of group 3 (" + std::to_string(world->size()) + " members)"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("not responding: member " + std::to_string(late) + " (world rank " + std::to_string(late) +
                               " on test-host, never entered it)"),
                  std::string::npos)
            << message;
    }
    world->barrier();
}

TEST(StallGuard, AMemberThatEnteredThenStoppedIsNamedAsSuch)
{
    // Member 0 enters a non-blocking allreduce first, polls it once past its arm interval (1 s
    // at its 30 s deadline), so it notes having entered, then makes no MPI call for 5 s. The
    // others enter the same allreduce after it armed and wait with a 0.5 s deadline: with vader's
    // single copy off (as the tests run) its 1 MiB moves only inside its own MPI calls, so none
    // of them completes.
    const auto world = mpi::world();
    if (world->size() == 1) GTEST_SKIP() << "needs a member to wait for";
    const bool stopped = world->rank() == 0;
    StallGuard guarded(*world, stopped ? 30 : 0.5, names(world->size()), "group 4");
    // A stalled non-blocking collective's buffers are the caller's to keep until the process ends.
    auto buffers = std::make_shared<std::vector<float>>(std::size_t{1} << 19, 1.0f);
    const std::span<const float> mine(buffers->data(), buffers->size() / 2);
    const std::span<float> total(buffers->data() + mine.size(), mine.size());
    std::string message;
    world->barrier();

    if (stopped) {
        auto request = guarded.iallreduce(mine, total, ReduceOp::sum);
        std::this_thread::sleep_for(std::chrono::milliseconds(1200));
        EXPECT_FALSE(request.test()) << "the others have not entered yet";
        std::this_thread::sleep_for(std::chrono::seconds(5));
        request.wait();  // the others' abandoned operations complete it while they wait in the barrier
    } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        const auto entered = std::chrono::steady_clock::now();
        try {
            guarded.iallreduce(mine, total, ReduceOp::sum).wait();
        } catch (const CollectiveStall& stall) {
            message = stall.what();
            keep_until_exit(buffers);
        }
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - entered).count();
        EXPECT_LT(waited, 4.5) << "the stall was not detected within deadline + ping grace";
        EXPECT_NE(message.find("allreduce #1 of group 4"), std::string::npos) << message;
        EXPECT_NE(message.find("not responding: member 0 (world rank 0 on test-host, entered it, then stopped responding)"),
                  std::string::npos)
            << message;
    }
    world->barrier();
}

TEST(StallGuard, BlockingAllreduceOfEveryTypeAndOpMatchesMpi)
{
    // A group of two reduces with its own exchange (stall_guard_pair.hpp): the same bits as
    // MPI_Allreduce, in place and out of place; other sizes go through MPI and must agree too.
    const auto world = mpi::world();
    StallGuard guarded(*world, 30, names(world->size()), "group 5");
    const auto check = [&](auto sample) {
        using T = decltype(sample);
        for (const auto op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::avg}) {
            std::vector<T> mine(300000), ours(mine.size()), in_place(mine.size()), theirs(mine.size());  // several chunks
            for (std::size_t i = 0; i < mine.size(); ++i) {
                mine[i] = static_cast<T>((i * 7 + static_cast<std::size_t>(world->rank()) * 13) % 101);
            }
            in_place = mine;
            guarded.allreduce(std::span<const T>(mine), std::span<T>(ours), op);
            guarded.allreduce(std::span<T>(in_place), op);
            world->allreduce(std::span<const T>(mine), std::span<T>(theirs), op);
            EXPECT_EQ(ours, theirs) << "op " << static_cast<int>(op);
            EXPECT_EQ(in_place, theirs) << "op " << static_cast<int>(op) << ", in place";
        }
    };
    check(std::uint8_t{});
    check(std::int32_t{});
    check(std::uint32_t{});
    check(std::int64_t{});
    check(std::uint64_t{});
    check(float{});
    check(double{});
}

}  // namespace
}  // namespace shardrun::collectives
