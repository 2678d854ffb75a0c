#include "runner/env/topology.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace shardrun::env {
namespace {

std::string hostname()
{
    std::array<char, 256> name{};
    if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
    return name.data();
}

// Fixed-size record so one allgather of bytes carries every rank's row.
struct WireRow {
    int rank, local_rank, local_size;
    char host[128];
    char device[64];
};

void copy_text(char* dest, size_t size, const std::string& text)
{
    std::strncpy(dest, text.c_str(), size - 1);
    dest[size - 1] = '\0';
}

}  // namespace

Topology detect_topology(collectives::Communicator& world, collectives::Communicator& node)
{
    using collectives::ReduceOp;
    Topology topo;
    topo.world_rank = world.rank();
    topo.world_size = world.size();
    topo.local_rank = node.rank();
    topo.local_size = node.size();
    // A node is named by its lowest world rank; its index is that name's place among all nodes.
    const int node_name = node.allreduce_value<std::int32_t>(topo.world_rank, ReduceOp::min);
    auto names = world.allgather_value<std::int32_t>(node_name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    topo.node_count = static_cast<int>(names.size());
    topo.node_index = static_cast<int>(std::lower_bound(names.begin(), names.end(), node_name) - names.begin());
    topo.host = hostname();
    return topo;
}

std::vector<RankRow> gather_rank_rows(collectives::Communicator& world, const RankRow& mine)
{
    WireRow wire{mine.rank, mine.local_rank, mine.local_size, {}, {}};
    copy_text(wire.host, sizeof wire.host, mine.host);
    copy_text(wire.device, sizeof wire.device, mine.device);
    std::vector<char> all(sizeof wire * static_cast<size_t>(world.size()));
    world.allgather(std::span<const char>(reinterpret_cast<const char*>(&wire), sizeof wire), std::span<char>(all));
    std::vector<RankRow> rows;
    if (world.rank() != 0) return rows;
    for (int r = 0; r < world.size(); ++r) {
        WireRow row;
        std::memcpy(&row, all.data() + sizeof wire * static_cast<size_t>(r), sizeof row);
        rows.push_back({row.rank, row.local_rank, row.local_size, row.host, row.device});
    }
    return rows;
}

}  // namespace shardrun::env
