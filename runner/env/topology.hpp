#pragma once

#include <string>
#include <vector>

#include "collectives/communicator.hpp"

namespace shardrun::env {

/** Where this rank sits in the world and on its node. */
struct Topology {
    int world_rank = 0;
    int world_size = 1;
    int local_rank = 0;   ///< rank inside the node communicator (ranks that share memory)
    int local_size = 1;
    int node_count = 1;   ///< number of distinct shared-memory nodes
    int node_index = 0;   ///< 0..node_count-1, nodes ordered by their lowest world rank
    std::string host;     ///< this rank's hostname
};

/** Collective over `world`; `node` holds the members of world that share memory with this rank. */
Topology detect_topology(collectives::Communicator& world, collectives::Communicator& node);

/** One row per rank, gathered on rank 0 (empty on other ranks). Collective. */
struct RankRow {
    int rank = 0;
    int local_rank = 0;
    int local_size = 1;
    std::string host;
    std::string device;
};
std::vector<RankRow> gather_rank_rows(collectives::Communicator& world, const RankRow& mine);

}  // namespace shardrun::env
