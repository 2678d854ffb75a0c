#pragma once

#include <mpi.h>

#include <stdexcept>

#include "base/communicator.hpp"

namespace shardrun::io::single {

/**
 * @internal The MPI_Comm behind the run's communicator, for the two MPI calls of layout single
 * that the Communicator interface does not offer: H5Pset_fapl_mpio (parallel HDF5 opens the
 * file over it) and the MPI_Gatherv of the ranks' task reasons (task_reasons.hpp).
 * @throws std::invalid_argument when `comm` is not an MPI communicator (MPI-IO needs one)
 */
inline MPI_Comm native_comm(const base::Communicator& comm)
{
    MPI_Comm native = MPI_COMM_NULL;
    if (!comm.native_mpi_comm(&native)) {
        throw std::invalid_argument("layout single writes through MPI-IO: it needs an MPI communicator");
    }
    return native;
}

}  // namespace shardrun::io::single
