#pragma once

#include <string>

namespace shardrun::io {

/** Version of the HDF5 library linked at run time ("1.10.8"). */
std::string hdf5_version();

/** True when this HDF5 was built with MPI-IO (parallel HDF5). */
bool hdf5_is_parallel();

}  // namespace shardrun::io
