#include "kernels/common/cuda_runtime.hpp"

namespace shardrun::kernels {

CudaRuntimeInfo query_cuda_runtime()
{
    CudaRuntimeInfo info;
    info.no_device_reason = "this shardrun was built without CUDA (SHARDRUN_CUDA=OFF or no nvcc)";
    return info;
}

std::string cuda_device_name(int /*ordinal*/) { return ""; }

}  // namespace shardrun::kernels
