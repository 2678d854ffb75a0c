#pragma once

#include <cstddef>
#include <cstdint>

namespace shardrun::kernels {

/**
 * Fills out[i] with a value in [lo, hi) that depends only on (seed, first + i), so any
 * chunk of a seeded data set can be generated on its own (OpenMP across the cores).
 * @param first  global index of out[0]
 */
void fill_seeded(float* out, std::size_t count, std::uint64_t seed, std::uint64_t first, float lo, float hi);
/** The float64 version of fill_seeded. */
void fill_seeded(double* out, std::size_t count, std::uint64_t seed, std::uint64_t first, double lo, double hi);

}  // namespace shardrun::kernels
