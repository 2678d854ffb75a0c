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

/**
 * One tap: sum + weight·pixel. Every backend adds the taps in order k = −radius … radius.
 * T is float, or a vector of floats on the CPU (weight is then broadcast).
 */
template <typename T>
SHARDRUN_HOST_DEVICE inline T blur_tap(T sum, float weight, T pixel)
{
    return sum + weight * pixel;
}

/** Σ_k weights[k]·window[k·stride] over the taps; window[0] is the pixel at offset −radius. */
SHARDRUN_HOST_DEVICE inline float blur_point(const float* window, long long stride, const float* weights, int taps)
{
    float sum = 0.0f;
    for (int k = 0; k < taps; ++k) sum = blur_tap(sum, weights[k], window[k * stride]);
    return sum;
}

}  // namespace shardrun::kernels
