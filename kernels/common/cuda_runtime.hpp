#pragma once

#include <string>

namespace shardrun::kernels {

/** What the CUDA runtime reports on this process (no CUDA types leak out of here). */
struct CudaRuntimeInfo {
    bool compiled = false;     ///< this build contains the CUDA backend
    int device_count = 0;      ///< devices visible to this process (after CUDA_VISIBLE_DEVICES)
    int runtime_version = 0;   ///< e.g. 13000 for CUDA 13.0; 0 when not compiled
    int driver_version = 0;    ///< 0 when no driver is installed
    std::string cublas_version;  ///< "13.0.0" or "" when not compiled
    std::string no_device_reason;  ///< why device_count is 0, empty otherwise
};

/** Queries the CUDA runtime; never throws, never initialises a context beyond the query. */
CudaRuntimeInfo query_cuda_runtime();

/** Name of device `ordinal` ("NVIDIA H100 80GB HBM3"), or "" without CUDA. */
std::string cuda_device_name(int ordinal);

}  // namespace shardrun::kernels
