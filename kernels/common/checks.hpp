#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace shardrun::kernels {

/** Throws InvalidKernelArgument(field) unless `value` > 0. */
void require_positive(const char* field, std::int64_t value);
/** Throws InvalidKernelArgument(field) unless `value` is finite (and > 0 when `positive`). */
void require_finite(const char* field, double value, bool positive = false);

/**
 * Bytes of `count` elements of `element_size` bytes, each count a product of `extents`;
 * saturates at SIZE_MAX instead of overflowing, so absurd sizes are refused, not wrapped.
 */
std::size_t buffer_bytes(std::initializer_list<std::int64_t> extents, std::size_t element_size);

/** Host memory this process may still allocate (MemAvailable, else free physical pages). */
std::size_t available_host_memory();

/**
 * Refuses, before anything is allocated, a call whose buffers need more than the host has.
 * @param bytes  total bytes the call will allocate
 * @param what  the kernel, for the message ("heat2d")
 * @throws InvalidKernelArgument naming the bytes needed and available
 */
void require_host_memory(std::size_t bytes, const std::string& what);

}  // namespace shardrun::kernels
