#include "kernels/common/seeded.hpp"

#include <cstdint>

#include "kernels/common/philox.hpp"

namespace shardrun::kernels {
namespace {

template <typename T>
void fill(T* out, std::size_t count, std::uint64_t seed, std::uint64_t first, T lo, T hi)
{
    const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
        const auto block = philox_at(seed, first + static_cast<std::uint64_t>(i), 0x5eed);
        const double u = uniform_open(block.w[0], block.w[1]);
        out[i] = static_cast<T>(lo + (hi - lo) * u);
    }
}

}  // namespace

void fill_seeded(float* out, std::size_t count, std::uint64_t seed, std::uint64_t first, float lo, float hi)
{
    fill(out, count, seed, first, lo, hi);
}

void fill_seeded(double* out, std::size_t count, std::uint64_t seed, std::uint64_t first, double lo, double hi)
{
    fill(out, count, seed, first, lo, hi);
}

}  // namespace shardrun::kernels
