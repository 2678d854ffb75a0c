#include "kernels/common/device_buffer.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace shardrun::kernels {
namespace {

constexpr std::align_val_t host_alignment{64};  // a cache line, and enough for any SIMD load

}  // namespace

DeviceBuffer::DeviceBuffer(const Device& device, std::size_t bytes) : device_(device), bytes_(bytes)
{
    if (bytes_ == 0) return;
    data_ = device_.kind == DeviceKind::cpu ? ::operator new(bytes_, host_alignment)
                                            : cuda::device_allocate(device_.ordinal, bytes_);
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : device_(other.device_), data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0))
{
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept
{
    if (this != &other) {
        release();
        device_ = other.device_;
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

void DeviceBuffer::copy_from_host(const void* source, std::size_t bytes, std::size_t offset)
{
    require_range(bytes, offset, "copy_from_host");
    if (bytes == 0) return;
    auto* target = static_cast<std::byte*>(data_) + offset;
    if (device_.kind == DeviceKind::cpu) {
        std::copy_n(static_cast<const std::byte*>(source), bytes, target);
    } else {
        cuda::copy_host_to_device(device_.ordinal, target, source, bytes);
    }
}

void DeviceBuffer::copy_to_host(void* destination, std::size_t bytes, std::size_t offset) const
{
    require_range(bytes, offset, "copy_to_host");
    if (bytes == 0) return;
    const auto* source = static_cast<const std::byte*>(data_) + offset;
    if (device_.kind == DeviceKind::cpu) {
        std::copy_n(source, bytes, static_cast<std::byte*>(destination));
    } else {
        cuda::copy_device_to_host(device_.ordinal, destination, source, bytes);
    }
}

void DeviceBuffer::require_range(std::size_t bytes, std::size_t offset, const char* what) const
{
    // Written so that offset + bytes cannot overflow.
    if (offset <= bytes_ && bytes <= bytes_ - offset) return;
    throw std::out_of_range(std::string("DeviceBuffer::") + what + ": " + std::to_string(bytes) + " bytes at offset " +
                            std::to_string(offset) + " do not fit a buffer of " + std::to_string(bytes_) + " bytes on " +
                            device_.label());
}

void DeviceBuffer::release() noexcept
{
    if (data_ == nullptr) return;
    if (device_.kind == DeviceKind::cpu) {
        ::operator delete(data_, host_alignment);
    } else {
        cuda::device_free(device_.ordinal, data_);
    }
    data_ = nullptr;
    bytes_ = 0;
}

}  // namespace shardrun::kernels
