#pragma once

#include <string>

namespace shardrun::kernels {

/** What the CUDA runtime reports on this process (no CUDA types leak out of here). */
struct CudaRuntimeInfo {
    bool compiled = false;     ///< this build contains the CUDA backend
    bool loaded = false;       ///< the backend library is loaded (the versions below are known)
    int device_count = 0;      ///< devices visible to this process (after CUDA_VISIBLE_DEVICES)
    int runtime_version = 0;   ///< e.g. 13000 for CUDA 13.0; 0 when not compiled
    int driver_version = 0;    ///< 0 when no driver is installed
    std::string cublas_version;  ///< "13.0.0" or "" when not compiled
    std::string no_device_reason;  ///< why device_count is 0, empty otherwise
};

/** How far query_cuda_runtime may go to answer. */
enum class CudaProbe {
    skip,       ///< load nothing: the caller will not use a GPU (device: cpu)
    if_driver,  ///< load the CUDA backend only when an NVIDIA driver is present (device: auto)
    load,       ///< load the CUDA backend (device: cuda, selftest, info)
};

/**
 * Queries the CUDA runtime through the CUDA backend library, loading it if `probe` allows;
 * never throws, never initialises a context beyond the query. When the library cannot be
 * loaded, device_count is 0 and no_device_reason says why in one line.
 */
CudaRuntimeInfo query_cuda_runtime(CudaProbe probe = CudaProbe::load);

/** Name of device `ordinal` ("NVIDIA H100 80GB HBM3"), or "" without CUDA. */
std::string cuda_device_name(int ordinal);

}  // namespace shardrun::kernels
