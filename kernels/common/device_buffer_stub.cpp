// Built without CUDA: a DeviceBuffer on a CUDA device throws NotCompiled, so callers need no #ifdef.
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/errors.hpp"

namespace shardrun::kernels::cuda {

void* device_allocate(int ordinal, std::size_t)
{
    throw NotCompiled("device buffer on cuda:" + std::to_string(ordinal) +
                      ": this shardrun was built without CUDA; use device: cpu");
}

// Unreachable (no CUDA buffer can exist in this build); defined so the header links.
void device_free(int, void*) noexcept {}

void copy_host_to_device(int ordinal, void*, const void*, std::size_t)
{
    throw NotCompiled("device buffer on cuda:" + std::to_string(ordinal) + ": this shardrun was built without CUDA");
}

void copy_device_to_host(int ordinal, void*, const void*, std::size_t)
{
    throw NotCompiled("device buffer on cuda:" + std::to_string(ordinal) + ": this shardrun was built without CUDA");
}

}  // namespace shardrun::kernels::cuda
