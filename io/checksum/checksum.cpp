#include "io/checksum/checksum.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace shardrun::io {
namespace {

constexpr std::uint32_t polynomial = 0x82F63B78u;  // CRC-32C, reflected

constexpr std::array<std::uint32_t, 256> make_table()
{
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ polynomial : c >> 1;
        table[i] = c;
    }
    return table;
}

constexpr auto table = make_table();

std::uint32_t crc32c_table(std::uint32_t crc, const unsigned char* p, std::size_t size) noexcept
{
    for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(std::uint32_t crc, const unsigned char* p,
                                                              std::size_t size) noexcept
{
    std::uint64_t c = crc;
    for (; size >= 8; size -= 8, p += 8) {
        std::uint64_t word;
        std::memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
    }
    auto c32 = static_cast<std::uint32_t>(c);
    for (; size > 0; --size, ++p) c32 = _mm_crc32_u8(c32, *p);
    return c32;
}

__attribute__((target("sse4.2"))) void lanes_sse42(std::uint32_t crcs[4], const unsigned char* p, std::size_t lane) noexcept
{
    std::uint64_t c0 = ~0u, c1 = ~0u, c2 = ~0u, c3 = ~0u;
    for (std::size_t i = 0; i < lane; i += 8) {
        std::uint64_t w0, w1, w2, w3;
        std::memcpy(&w0, p + i, 8);
        std::memcpy(&w1, p + lane + i, 8);
        std::memcpy(&w2, p + 2 * lane + i, 8);
        std::memcpy(&w3, p + 3 * lane + i, 8);
        c0 = _mm_crc32_u64(c0, w0);
        c1 = _mm_crc32_u64(c1, w1);
        c2 = _mm_crc32_u64(c2, w2);
        c3 = _mm_crc32_u64(c3, w3);
    }
    crcs[0] = ~static_cast<std::uint32_t>(c0);
    crcs[1] = ~static_cast<std::uint32_t>(c1);
    crcs[2] = ~static_cast<std::uint32_t>(c2);
    crcs[3] = ~static_cast<std::uint32_t>(c3);
}
#endif

}  // namespace

std::uint32_t lane_checksum(const void* data, std::size_t size) noexcept
{
    const auto* p = static_cast<const unsigned char*>(data);
    const std::size_t lane = size / 32 * 8;  // four lanes of whole 8-byte words
    std::uint32_t crcs[5] = {};
#if defined(__x86_64__)
    static const bool has_sse42 = __builtin_cpu_supports("sse4.2");
    if (has_sse42 && lane > 0) {
        lanes_sse42(crcs, p, lane);
    } else
#endif
    {
        for (int k = 0; k < 4; ++k) crcs[k] = crc32c(0, p + k * lane, lane);
    }
    crcs[4] = crc32c(0, p + 4 * lane, size - 4 * lane);  // the tail
    return crc32c(0, crcs, sizeof crcs);
}

std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t size) noexcept
{
    const auto* p = static_cast<const unsigned char*>(data);
    crc = ~crc;
#if defined(__x86_64__)
    static const bool has_sse42 = __builtin_cpu_supports("sse4.2");
    crc = has_sse42 ? crc32c_sse42(crc, p, size) : crc32c_table(crc, p, size);
#else
    crc = crc32c_table(crc, p, size);
#endif
    return ~crc;
}

}  // namespace shardrun::io
