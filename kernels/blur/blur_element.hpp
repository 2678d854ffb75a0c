#pragma once

#include <cmath>

#include "kernels/common/host_device.hpp"

namespace shardrun::kernels {

/** radius = ceil(3·sigma): the taps beyond it weigh less than 1.2e-2 of the centre. */
SHARDRUN_HOST_DEVICE inline int blur_radius(double sigma) { return static_cast<int>(ceil(3.0 * sigma)); }

/** Unnormalised Gaussian weight of offset k. */
SHARDRUN_HOST_DEVICE inline double gaussian_tap(int k, double sigma)
{
    return exp(-static_cast<double>(k) * k / (2.0 * sigma * sigma));
}

/** Clamped border: indices outside [0, n) take the nearest edge pixel. */
SHARDRUN_HOST_DEVICE inline long long clamp_index(long long i, long long n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

/** Σ_k weights[k]·window[k·stride] over the taps; window[0] is the pixel at offset −radius. */
SHARDRUN_HOST_DEVICE inline float blur_point(const float* window, long long stride, const float* weights, int taps)
{
    float sum = 0.0f;
    for (int k = 0; k < taps; ++k) sum += weights[k] * window[k * stride];
    return sum;
}

/** blur_point with clamping, for pixels within radius of an edge: line[i·stride], i in [0, n). */
SHARDRUN_HOST_DEVICE inline float blur_point_clamped(const float* line, long long stride, long long n, long long center,
                                                     const float* weights, int radius)
{
    float sum = 0.0f;
    for (int k = -radius; k <= radius; ++k) sum += weights[k + radius] * line[clamp_index(center + k, n) * stride];
    return sum;
}

}  // namespace shardrun::kernels
