// The binary's side of every CUDA entry point of kernels/: each forwards to the backend library,
// loading it on the first call, so a process that never asks for a GPU never maps CUDA.
#include "kernels/common/cuda_backend.hpp"

namespace shardrun::kernels::cuda {

void* device_allocate(int ordinal, std::size_t bytes)
{
    return kernel_table("device buffer").device_allocate(ordinal, bytes);
}

void device_free(int ordinal, void* data) noexcept
{
    // A CUDA buffer exists only once the backend is loaded.
    if (backend_loaded()) kernel_table("device buffer").device_free(ordinal, data);
}

void copy_host_to_device(int ordinal, void* device, const void* host, std::size_t bytes)
{
    kernel_table("device buffer").copy_host_to_device(ordinal, device, host, bytes);
}

void copy_device_to_host(int ordinal, void* host, const void* device, std::size_t bytes)
{
    kernel_table("device buffer").copy_device_to_host(ordinal, host, device, bytes);
}

}  // namespace shardrun::kernels::cuda

// One forwarder per line of the kernel folders' SHARDRUN_<NAME>_CUDA_TABLE (cuda_kernel_list.hpp).
#define SHARDRUN_KERNEL_FORWARDER(scope, member, function, label, declare, arguments)  \
    namespace shardrun::kernels::scope {                                                 \
    declare { return ::shardrun::kernels::cuda::kernel_table(label).member arguments; } \
    }
SHARDRUN_CUDA_KERNELS(SHARDRUN_KERNEL_FORWARDER)
#undef SHARDRUN_KERNEL_FORWARDER
