#pragma once

#include <mutex>
#include <string>

namespace shardrun::io {

/** Version of the HDF5 library linked at run time ("1.10.8"). */
std::string hdf5_version();

/**
 * Debian's parallel HDF5 is built without thread safety: every HDF5 call of the process
 * (results sink, input reader) holds this mutex when several threads may run tasks.
 */
std::mutex& hdf5_mutex();

/** True when this HDF5 was built with MPI-IO (parallel HDF5). */
bool hdf5_is_parallel();

}  // namespace shardrun::io
