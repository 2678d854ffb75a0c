#include "runner/env/topology.hpp"

#include <mpi.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "collectives/mpi/mpi_error.hpp"

namespace shardrun::env {
namespace {

std::string hostname()
{
    std::array<char, 256> name{};
    if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
    return name.data();
}

// Fixed-size record so one MPI_Gather of bytes carries every rank's row.
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

Topology detect_topology()
{
    Topology topo;
    SHARDRUN_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &topo.world_rank));
    SHARDRUN_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &topo.world_size));
    MPI_Comm node_comm = MPI_COMM_NULL;
    SHARDRUN_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, topo.world_rank,
                                           MPI_INFO_NULL, &node_comm));
    SHARDRUN_MPI_CHECK(MPI_Comm_rank(node_comm, &topo.local_rank));
    SHARDRUN_MPI_CHECK(MPI_Comm_size(node_comm, &topo.local_size));
    MPI_Comm_free(&node_comm);
    int leader = topo.local_rank == 0 ? 1 : 0;
    SHARDRUN_MPI_CHECK(MPI_Allreduce(&leader, &topo.node_count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    topo.host = hostname();
    return topo;
}

std::vector<RankRow> gather_rank_rows(const RankRow& mine)
{
    int rank = 0, size = 1;
    SHARDRUN_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    SHARDRUN_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    WireRow wire{mine.rank, mine.local_rank, mine.local_size, {}, {}};
    copy_text(wire.host, sizeof wire.host, mine.host);
    copy_text(wire.device, sizeof wire.device, mine.device);
    std::vector<WireRow> all(rank == 0 ? static_cast<size_t>(size) : 0);
    SHARDRUN_MPI_CHECK(MPI_Gather(&wire, sizeof wire, MPI_BYTE, all.data(), sizeof wire, MPI_BYTE, 0,
                                  MPI_COMM_WORLD));
    std::vector<RankRow> rows;
    for (const auto& row : all) {
        rows.push_back({row.rank, row.local_rank, row.local_size, row.host, row.device});
    }
    return rows;
}

}  // namespace shardrun::env
