#pragma once

#include <string>
#include <vector>

namespace shardrun::env {

/** Where this rank sits in MPI_COMM_WORLD and on its node. */
struct Topology {
    int world_rank = 0;
    int world_size = 1;
    int local_rank = 0;   ///< rank inside MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
    int local_size = 1;
    int node_count = 1;   ///< number of distinct shared-memory nodes
    std::string host;     ///< this rank's hostname
};

/** Collective over MPI_COMM_WORLD: every rank must call it. */
Topology detect_topology();

/** One row per rank, gathered on rank 0 (empty on other ranks). Collective. */
struct RankRow {
    int rank = 0;
    int local_rank = 0;
    int local_size = 1;
    std::string host;
    std::string device;
};
std::vector<RankRow> gather_rank_rows(const RankRow& mine);

}  // namespace shardrun::env
