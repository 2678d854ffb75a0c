#pragma once

#include <cmath>

#include "kernels/common/host_device.hpp"

namespace shardrun::kernels {

enum class Activation { identity, relu, gelu, tanh };

/** The activation of one pre-activation value (gelu: the tanh approximation). */
SHARDRUN_HOST_DEVICE inline float activate(Activation activation, float x)
{
    switch (activation) {
    case Activation::relu: return x > 0.0f ? x : 0.0f;
    case Activation::gelu: return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    case Activation::tanh: return tanhf(x);
    case Activation::identity: break;
    }
    return x;
}

/** The factor that scales a row of squared norm `sum_squares` to unit length (0 for a zero row). */
SHARDRUN_HOST_DEVICE inline float unit_scale(float sum_squares)
{
    return sum_squares > 0.0f ? 1.0f / sqrtf(sum_squares) : 0.0f;
}

}  // namespace shardrun::kernels
