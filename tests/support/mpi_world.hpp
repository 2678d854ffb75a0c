#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace shardrun::testing {

/** This process's rank in MPI_COMM_WORLD. */
inline int world_rank()
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/** The size of MPI_COMM_WORLD. */
inline int world_size()
{
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

/** Every rank's ids concatenated on rank 0 in rank order (empty elsewhere). Collective. */
inline std::vector<std::uint64_t> gather_on_rank0(const std::vector<std::uint64_t>& mine)
{
    const int count = static_cast<int>(mine.size());
    std::vector<int> sizes(static_cast<size_t>(world_size()));
    MPI_Gather(&count, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(sizes.size(), 0);
    for (size_t r = 1; r < sizes.size(); ++r) offsets[r] = offsets[r - 1] + sizes[r - 1];
    std::vector<std::uint64_t> all(world_rank() == 0 ? static_cast<size_t>(offsets.back() + sizes.back()) : 0);
    MPI_Gatherv(mine.data(), count, MPI_UINT64_T, all.data(), sizes.data(), offsets.data(), MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
    return all;
}

}  // namespace shardrun::testing
