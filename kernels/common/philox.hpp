#pragma once

#include <cstdint>

#include "kernels/common/host_device.hpp"

namespace shardrun::kernels {

/** Four 32-bit words: a Philox counter or output block. */
struct PhiloxBlock {
    std::uint32_t w[4];
};

/**
 * Philox4x32-10 (Salmon et al., SC'11): a counter-based generator, so the numbers for
 * (seed, index) are the same whichever thread, rank or device computes them.
 */
SHARDRUN_HOST_DEVICE inline PhiloxBlock philox4x32_10(PhiloxBlock c, std::uint64_t seed)
{
    std::uint32_t k0 = static_cast<std::uint32_t>(seed);
    std::uint32_t k1 = static_cast<std::uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
        const std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53u) * c.w[0];
        const std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57u) * c.w[2];
        const PhiloxBlock next = {{static_cast<std::uint32_t>(p1 >> 32) ^ c.w[1] ^ k0, static_cast<std::uint32_t>(p1),
                                   static_cast<std::uint32_t>(p0 >> 32) ^ c.w[3] ^ k1, static_cast<std::uint32_t>(p0)}};
        c = next;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c;
}

/** The Philox block for item `index` of stream `stream`. */
SHARDRUN_HOST_DEVICE inline PhiloxBlock philox_at(std::uint64_t seed, std::uint64_t index, std::uint32_t stream = 0)
{
    const PhiloxBlock counter = {{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), stream, 0u}};
    return philox4x32_10(counter, seed);
}

/** A double in (0, 1) from 53 random bits. */
SHARDRUN_HOST_DEVICE inline double uniform_open(std::uint32_t hi, std::uint32_t lo)
{
    const std::uint64_t bits = (static_cast<std::uint64_t>(hi >> 5) << 26) | (lo >> 6);
    return (static_cast<double>(bits) + 0.5) * (1.0 / 9007199254740992.0);
}

/** A float in [-1, 1) from 32 random bits (test and benchmark data). */
SHARDRUN_HOST_DEVICE inline float signed_unit(std::uint32_t bits)
{
    return static_cast<float>(static_cast<double>(bits) * (2.0 / 4294967296.0) - 1.0);
}

}  // namespace shardrun::kernels
