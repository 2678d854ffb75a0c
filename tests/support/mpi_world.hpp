#pragma once

#include <mpi.h>

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

}  // namespace shardrun::testing
