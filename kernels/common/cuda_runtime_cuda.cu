#include "kernels/common/cuda_runtime.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string>

namespace shardrun::kernels {

CudaRuntimeInfo query_cuda_runtime()
{
    CudaRuntimeInfo info;
    info.compiled = true;
    cudaRuntimeGetVersion(&info.runtime_version);
    cudaDriverGetVersion(&info.driver_version);
    int major = 0, minor = 0, patch = 0;
    cublasGetProperty(MAJOR_VERSION, &major);
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    info.cublas_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        info.device_count = 0;
        info.no_device_reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
        cudaGetLastError();  // clear the sticky error so later queries start clean
    } else {
        info.device_count = count;
        if (count == 0) info.no_device_reason = "the CUDA runtime reports 0 devices";
    }
    return info;
}

std::string cuda_device_name(int ordinal)
{
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return prop.name;
}

}  // namespace shardrun::kernels
