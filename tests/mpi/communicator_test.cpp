// The MPI backend of collectives::Communicator (run at 1, 2, 4 ranks). Every input is seeded
// from the rank, so each rank computes the expected result locally (as nccl-tests' verifiable/).
#include "collectives/communicator.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "collectives/mpi/mpi_communicator.hpp"

namespace shardrun::collectives {
namespace {

class Communicators : public ::testing::Test {
protected:
    std::unique_ptr<Communicator> world = mpi::world();
    int rank = world->rank();
    int size = world->size();
};

TEST_F(Communicators, BroadcastCarriesTheRootsValues)
{
    const int root = size - 1;
    std::vector<double> data(5, -1.0);
    if (rank == root) std::iota(data.begin(), data.end(), 10.0);

    world->broadcast(std::span<double>(data), root);

    EXPECT_EQ(data, (std::vector<double>{10, 11, 12, 13, 14}));
}

TEST_F(Communicators, AllreduceSumMinMaxAvg)
{
    const std::vector<std::int64_t> mine{rank + 1, 10 * (rank + 1)};
    std::vector<std::int64_t> sum(2), low(2), high(2);
    std::vector<double> avg{static_cast<double>(rank), 1.0};

    world->allreduce(std::span<const std::int64_t>(mine), std::span<std::int64_t>(sum), ReduceOp::sum);
    world->allreduce(std::span<const std::int64_t>(mine), std::span<std::int64_t>(low), ReduceOp::min);
    world->allreduce(std::span<const std::int64_t>(mine), std::span<std::int64_t>(high), ReduceOp::max);
    world->allreduce(std::span<double>(avg), ReduceOp::avg);

    const std::int64_t n = size;
    EXPECT_EQ(sum, (std::vector<std::int64_t>{n * (n + 1) / 2, 10 * n * (n + 1) / 2}));
    EXPECT_EQ(low, (std::vector<std::int64_t>{1, 10}));
    EXPECT_EQ(high, (std::vector<std::int64_t>{n, 10 * n}));
    EXPECT_DOUBLE_EQ(avg[0], (n - 1) / 2.0);
    EXPECT_DOUBLE_EQ(avg[1], 1.0);
}

TEST_F(Communicators, AllgatherPutsEachRanksBlockAtItsPlace)
{
    const std::vector<std::int32_t> mine{rank, -rank};
    std::vector<std::int32_t> all(2 * static_cast<size_t>(size));

    world->allgather(std::span<const std::int32_t>(mine), std::span<std::int32_t>(all));

    for (int r = 0; r < size; ++r) {
        EXPECT_EQ(all[2 * r], r);
        EXPECT_EQ(all[2 * r + 1], -r);
    }
}

TEST_F(Communicators, ReduceScatterGivesEachRankItsReducedBlock)
{
    // Rank r sends block b filled with r + b; rank b receives sum over r of (r + b).
    std::vector<float> send(3 * static_cast<size_t>(size));
    for (int b = 0; b < size; ++b) std::fill_n(send.begin() + 3 * b, 3, static_cast<float>(rank + b));
    std::vector<float> mine(3), avg(3);

    world->reduce_scatter(std::span<const float>(send), std::span<float>(mine), ReduceOp::sum);
    world->reduce_scatter(std::span<const float>(send), std::span<float>(avg), ReduceOp::avg);

    const float expected = static_cast<float>(size * (size - 1) / 2 + size * rank);
    EXPECT_EQ(mine, std::vector<float>(3, expected));
    EXPECT_EQ(avg, std::vector<float>(3, expected / static_cast<float>(size)));
}

TEST_F(Communicators, NonBlockingFormsCompleteWithTheSameResults)
{
    std::vector<std::uint64_t> sum{static_cast<std::uint64_t>(rank)};
    std::vector<double> avg{2.0 * rank};
    std::vector<std::int32_t> root_value{rank == 0 ? 42 : 0};
    std::vector<std::int32_t> ranks(static_cast<size_t>(size));
    const std::int32_t me = rank;
    std::vector<std::int32_t> scattered(1);
    const std::vector<std::int32_t> ones(static_cast<size_t>(size), 1);

    std::vector<Request> requests;
    requests.push_back(world->iallreduce(std::span<std::uint64_t>(sum), ReduceOp::sum));
    requests.push_back(world->iallreduce(std::span<double>(avg), ReduceOp::avg));
    requests.push_back(world->ibroadcast(std::span<std::int32_t>(root_value), 0));
    requests.push_back(world->iallgather(std::span<const std::int32_t>(&me, 1), std::span<std::int32_t>(ranks)));
    requests.push_back(world->ireduce_scatter(std::span<const std::int32_t>(ones), std::span<std::int32_t>(scattered),
                                              ReduceOp::sum));
    requests.push_back(world->ibarrier());
    while (!requests.back().test()) {
    }
    wait_all(requests);

    EXPECT_EQ(sum[0], static_cast<std::uint64_t>(size * (size - 1) / 2));
    EXPECT_DOUBLE_EQ(avg[0], static_cast<double>(size - 1));
    EXPECT_EQ(root_value[0], 42);
    for (int r = 0; r < size; ++r) EXPECT_EQ(ranks[r], r);
    EXPECT_EQ(scattered[0], size);
}

TEST_F(Communicators, SplitGroupsAreIsolatedAndOrderedByKey)
{
    // Two colors (even and odd ranks), keys reversed: the highest world rank becomes rank 0.
    const auto part = world->split(rank % 2, -rank);

    const auto members = part->allgather_value<std::int32_t>(rank);
    const auto total = part->allreduce_value<std::int32_t>(rank, ReduceOp::sum);

    std::vector<std::int32_t> expected;
    for (int r = size - 1; r >= 0; --r) {
        if (r % 2 == rank % 2) expected.push_back(r);
    }
    EXPECT_EQ(members, expected);
    EXPECT_EQ(total, std::accumulate(expected.begin(), expected.end(), 0));
    EXPECT_EQ(world->split(-1, 0), nullptr);
}

TEST_F(Communicators, MessagesArriveInOrderFromAnySource)
{
    // Every rank sends two numbered messages to rank 0, which receives from whoever comes first.
    const std::array<std::int64_t, 2> first{rank, 1}, second{rank, 2};
    std::vector<Request> sends;
    sends.push_back(world->isend(std::span<const std::int64_t>(first), 0, 5));
    sends.push_back(world->isend(std::span<const std::int64_t>(second), 0, 5));
    std::vector<int> next(static_cast<size_t>(size), 1);
    bool ordered = true;

    if (rank == 0) {
        for (int i = 0; i < 2 * size; ++i) {
            std::array<std::int64_t, 2> message{};
            world->recv(std::span<std::int64_t>(message), any_source, 5);
            ordered = ordered && message[1] == next[static_cast<size_t>(message[0])]++;
        }
    }
    wait_all(sends);

    EXPECT_TRUE(ordered);
    if (rank == 0) EXPECT_EQ(next, std::vector<int>(static_cast<size_t>(size), 3));
    world->barrier();
}

TEST_F(Communicators, MismatchedSpanSizesAreRefused)
{
    std::vector<double> small(1), big(2);

    EXPECT_THROW(world->allreduce(std::span<const double>(small), std::span<double>(big), ReduceOp::sum),
                 std::invalid_argument);
    EXPECT_THROW(world->allgather(std::span<const double>(big), std::span<double>(small)), std::invalid_argument);
}

TEST_F(Communicators, AllgatherStringsKeepsEachLength)
{
    const std::string mine(static_cast<size_t>(rank) * 3, static_cast<char>('a' + rank));

    const auto all = allgather_strings(*world, mine);

    ASSERT_EQ(all.size(), static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) EXPECT_EQ(all[r], std::string(static_cast<size_t>(r) * 3, static_cast<char>('a' + r)));
}

}  // namespace
}  // namespace shardrun::collectives
