#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "kernels/common/device.hpp"

namespace shardrun::kernels {

namespace cuda {
/** @internal Backend of DeviceBuffer (device_buffer_cuda.cu; the stub throws NotCompiled). */
void* device_allocate(int ordinal, std::size_t bytes);
void device_free(int ordinal, void* data) noexcept;
void copy_host_to_device(int ordinal, void* device, const void* host, std::size_t bytes);
void copy_device_to_host(int ordinal, void* host, const void* device, std::size_t bytes);
}  // namespace cuda

/**
 * `bytes` bytes on a Device, owned: host memory for Device::cpu(), plain cudaMalloc memory
 * for a CUDA device. Lets code that is not compiled by nvcc (runner/, the NCCL
 * communicator's users) hold device memory without CUDA types. Move-only; the contents start
 * uninitialised.
 *
 * Copies are synchronous: when copy_from_host returns, the data is on the device and any
 * stream may use it. They are not ordered after work still running on other streams: finish
 * what writes the buffer (wait its Request, synchronize its stream) before copy_to_host.
 */
class DeviceBuffer {
public:
    /** An empty buffer (no device memory, bytes() == 0). */
    DeviceBuffer() = default;
    /**
     * @throws NotCompiled  for a CUDA device in a build without CUDA
     * @throws CudaError    when the device does not exist or the allocation fails
     * @throws InvalidKernelArgument  when the device has less free memory than `bytes`
     */
    DeviceBuffer(const Device& device, std::size_t bytes);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    /** Device memory for CUDA (never dereference it on the host); nullptr when empty. */
    void* data() noexcept { return data_; }
    const void* data() const noexcept { return data_; }
    std::size_t bytes() const noexcept { return bytes_; }
    const Device& device() const noexcept { return device_; }

    /** Copies `bytes` bytes from host memory into this buffer at byte `offset`. @throws std::out_of_range */
    void copy_from_host(const void* source, std::size_t bytes, std::size_t offset = 0);
    /** Copies `bytes` bytes at byte `offset` of this buffer into host memory. @throws std::out_of_range */
    void copy_to_host(void* destination, std::size_t bytes, std::size_t offset = 0) const;

    /** Typed forms: the whole span, at element `first` of the buffer seen as T[]. */
    template <typename T>
    void copy_from_host(std::span<const T> source, std::size_t first = 0)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        copy_from_host(source.data(), source.size_bytes(), byte_offset<T>(first));
    }
    template <typename T>
    void copy_to_host(std::span<T> destination, std::size_t first = 0) const
    {
        static_assert(std::is_trivially_copyable_v<T>);
        copy_to_host(destination.data(), destination.size_bytes(), byte_offset<T>(first));
    }

private:
    template <typename T>
    static std::size_t byte_offset(std::size_t first) noexcept
    {
        // Saturates instead of wrapping, so an absurd index is refused rather than aliased.
        return first > SIZE_MAX / sizeof(T) ? SIZE_MAX : first * sizeof(T);
    }
    void require_range(std::size_t bytes, std::size_t offset, const char* what) const;
    void release() noexcept;

    Device device_ = Device::cpu();
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace shardrun::kernels
