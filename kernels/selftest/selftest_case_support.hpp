#pragma once

// What the kernels' selftest cases (kernels/<name>/<name>_check.cpp) share: small, odd sizes (not
// multiples of a warp or a SIMD width) and seeded random inputs, and the error measure.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/seeded.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/selftest/selftest.hpp"

namespace shardrun::kernels::selftest_support {

/** `count` values in [lo, hi) that depend only on (seed, index). */
template <typename T>
std::vector<T> random_values(std::size_t count, std::uint64_t seed, T lo = T(-1), T hi = T(1))
{
    std::vector<T> values(count);
    fill_seeded(values.data(), count, seed, 0, lo, hi);
    return values;
}

/** "65x33x47": a row's size column. */
template <typename... Extents>
std::string size_text(Extents... extents)
{
    std::string text;
    ((text += (text.empty() ? "" : "x") + std::to_string(extents)), ...);
    return text;
}

}  // namespace shardrun::kernels::selftest_support
