#include "kernels/common/cuda_check.cuh"
#include "kernels/common/device_buffer.hpp"

namespace shardrun::kernels::cuda {

void* device_allocate(int ordinal, std::size_t bytes)
{
    SHARDRUN_CUDA_CHECK(cudaSetDevice(ordinal));
    // Refused with the bytes needed and free, rather than cudaMalloc's bare "out of memory".
    require_device_memory(bytes, "a device buffer on cuda:" + std::to_string(ordinal));
    void* data = nullptr;
    SHARDRUN_CUDA_CHECK(cudaMalloc(&data, bytes));
    return data;
}

void device_free(int ordinal, void* data) noexcept
{
    // Errors are dropped: a destructor cannot report them, and a failed free leaks nothing more.
    if (cudaSetDevice(ordinal) == cudaSuccess) cudaFree(data);
    cudaGetLastError();
}

// Through a stream and its synchronisation, not plain cudaMemcpy: from pageable memory that may
// return before the data reaches the device, and the legacy default stream does not order work
// on the non-blocking streams the kernels and the NCCL communicator use.
void copy_host_to_device(int ordinal, void* device, const void* host, std::size_t bytes)
{
    SHARDRUN_CUDA_CHECK(cudaSetDevice(ordinal));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, cudaStreamPerThread));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

void copy_device_to_host(int ordinal, void* host, const void* device, std::size_t bytes)
{
    SHARDRUN_CUDA_CHECK(cudaSetDevice(ordinal));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, cudaStreamPerThread));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

}  // namespace shardrun::kernels::cuda
