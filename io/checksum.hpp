#pragma once

#include <cstddef>
#include <cstdint>

namespace shardrun::io {

/**
 * CRC-32C (Castagnoli) of `size` bytes continuing from `crc` (start with 0). Uses the
 * SSE4.2 crc32 instruction when the CPU has it (several GB/s, so checksumming a segment
 * costs little next to writing it), a table otherwise.
 */
std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t size) noexcept;

}  // namespace shardrun::io
