#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernels/common/cuda_runtime.hpp"

namespace shardrun::env {

/** What this binary was built with and what it finds at run time. */
struct BuildFeatures {
    std::string version;      ///< shardrun version
    std::string git_commit;
    bool cuda = false;        ///< CUDA backend compiled in
    bool nccl = false;        ///< NCCL backend compiled in
    bool hdf5_parallel = false;
    int cuda_devices = 0;     ///< devices visible to this process
    std::string no_device_reason;
    /** Library name -> version, in a fixed order (MPI, HDF5, CUDA runtime, cuBLAS, NCCL, ...). */
    std::vector<std::pair<std::string, std::string>> libraries;
};

/**
 * Queries the linked libraries; touches MPI only through MPI_Get_library_version.
 * @param probe  whether the CUDA backend library may be loaded to count the GPUs and report the
 *               CUDA, cuBLAS and NCCL versions (a CPU-only run must not pay for loading it)
 */
BuildFeatures detect_build_features(kernels::CudaProbe probe = kernels::CudaProbe::load);

}  // namespace shardrun::env
