#pragma once

// CUDA-only helpers shared by the *_cuda.cu files: checked calls, RAII buffers, the rank's
// stream and cuBLAS handle. Never include this from code the host compiler sees.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "kernels/common/errors.hpp"

#define SHARDRUN_CUDA_CHECK(call) ::shardrun::kernels::cuda::check_cuda((call), #call, __FILE__, __LINE__)
#define SHARDRUN_CUBLAS_CHECK(call) ::shardrun::kernels::cuda::check_cublas((call), #call, __FILE__, __LINE__)
/** After every kernel launch: launch-configuration errors surface here. */
#define SHARDRUN_CUDA_CHECK_LAUNCH() SHARDRUN_CUDA_CHECK(cudaGetLastError())

namespace shardrun::kernels::cuda {

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line)
{
    if (status == cudaSuccess) return;
    throw CudaError(file, line, std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS) return;
    throw CudaError(file, line, std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                    cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")");
}

/** Makes `ordinal` current and returns the calling thread's stream on it (created once per
 *  thread and device, released when the thread ends: one per task slot of the rank). */
cudaStream_t rank_stream(int ordinal);
/** The calling thread's cuBLAS handle on `ordinal`, bound to rank_stream(ordinal). */
cublasHandle_t rank_cublas(int ordinal);

/**
 * Refuses, before cudaMalloc, a call whose device buffers exceed the free device memory.
 * @throws InvalidKernelArgument with the bytes needed and available
 */
void require_device_memory(std::size_t bytes, const std::string& what);

/** Device memory from plain cudaMalloc (no managed memory), freed on scope exit. */
template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t count) : count_(count)
    {
        SHARDRUN_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    }
    ~DeviceBuffer() { cudaFree(data_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const noexcept { return data_; }
    std::size_t bytes() const noexcept { return count_ * sizeof(T); }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

/** Pinned host staging memory (cudaMallocHost), so copies are true async DMA. */
template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(std::size_t count) : count_(count)
    {
        SHARDRUN_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    }
    ~PinnedBuffer() { cudaFreeHost(data_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    T* get() const noexcept { return data_; }
    std::size_t bytes() const noexcept { return count_ * sizeof(T); }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace shardrun::kernels::cuda
