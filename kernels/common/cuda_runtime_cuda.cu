#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string>

#include "kernels/common/cuda_backend.hpp"

namespace shardrun::kernels::cuda {

CudaRuntimeInfo query_runtime()
{
    CudaRuntimeInfo info;
    info.compiled = true;
    info.loaded = true;
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

std::string device_name(int ordinal)
{
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return prop.name;
}

}  // namespace shardrun::kernels::cuda

// ---- the rank's stream and cuBLAS handle (declared in cuda_check.cuh)
#include <map>

#include "kernels/common/cuda_check.cuh"

namespace shardrun::kernels::cuda {
namespace {

// One stream and one cuBLAS handle per thread and device: the tasks a rank runs at once
// (slots_per_rank, tasks_per_gpu) each compute on their own stream, and a cuBLAS handle must not
// be used by two threads at once. They are released when their thread ends; for the main thread
// that is at exit, before the CUDA runtime's own teardown (glibc runs thread_local destructors
// first), so compute-sanitizer's leak check sees them freed.
struct RankContext {
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
};

struct ThreadContexts {
    std::map<int, RankContext> by_device;

    ~ThreadContexts()
    {
        for (auto& entry : by_device) {
            cudaSetDevice(entry.first);  // errors ignored: nothing to report to at thread exit
            if (entry.second.cublas != nullptr) cublasDestroy(entry.second.cublas);
            if (entry.second.stream != nullptr) cudaStreamDestroy(entry.second.stream);
        }
    }
};

RankContext& rank_context(int ordinal)
{
    thread_local ThreadContexts contexts;
    SHARDRUN_CUDA_CHECK(cudaSetDevice(ordinal));
    auto& context = contexts.by_device[ordinal];
    if (context.stream == nullptr) {
        SHARDRUN_CUDA_CHECK(cudaStreamCreateWithFlags(&context.stream, cudaStreamNonBlocking));
        SHARDRUN_CUBLAS_CHECK(cublasCreate(&context.cublas));
        SHARDRUN_CUBLAS_CHECK(cublasSetStream(context.cublas, context.stream));
    }
    return context;
}

}  // namespace

cudaStream_t rank_stream(int ordinal) { return rank_context(ordinal).stream; }

cublasHandle_t rank_cublas(int ordinal) { return rank_context(ordinal).cublas; }

void require_device_memory(std::size_t bytes, const std::string& what)
{
    std::size_t free_bytes = 0, total_bytes = 0;
    SHARDRUN_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes <= free_bytes) return;
    SHARDRUN_THROW(InvalidKernelArgument, "memory", what + " needs " + std::to_string(bytes) +
                                              " bytes of device memory but only " + std::to_string(free_bytes) +
                                              " bytes are free (of " + std::to_string(total_bytes) +
                                              "); use smaller sizes or split the data");
}

}  // namespace shardrun::kernels::cuda
