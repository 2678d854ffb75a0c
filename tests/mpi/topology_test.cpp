#include "runner/env/topology.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <set>

#include "collectives/mpi/mpi_communicator.hpp"

namespace shardrun::env {
namespace {

Topology detect()
{
    const auto world = collectives::mpi::world();
    const auto node = collectives::mpi::split_by_node(*world);
    return detect_topology(*world, *node);
}

TEST(Topology, MatchesMpiWorldAndOneNode)
{
    const int size = collectives::mpi::world()->size();

    const auto topo = detect();

    EXPECT_EQ(topo.world_size, size);
    EXPECT_EQ(topo.node_count, 1);  // the test runs on one machine
    EXPECT_EQ(topo.node_index, 0);
    EXPECT_EQ(topo.local_size, size);
    EXPECT_EQ(topo.local_rank, topo.world_rank);
    EXPECT_FALSE(topo.host.empty());
}

TEST(Topology, GatheredRowsHaveDistinctLocalRanks)
{
    const auto topo = detect();

    const auto rows = gather_rank_rows(*collectives::mpi::world(), {topo.world_rank, topo.local_rank, topo.local_size, topo.host, "cpu"});

    if (topo.world_rank != 0) {
        EXPECT_TRUE(rows.empty());
        return;
    }
    ASSERT_EQ(rows.size(), static_cast<size_t>(topo.world_size));
    std::set<int> local_ranks;
    for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].rank, static_cast<int>(i));
        local_ranks.insert(rows[i].local_rank);
    }
    EXPECT_EQ(local_ranks.size(), rows.size());
}

}  // namespace
}  // namespace shardrun::env
