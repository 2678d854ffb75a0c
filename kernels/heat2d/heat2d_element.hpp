#pragma once

#include "kernels/common/host_device.hpp"

namespace shardrun::kernels {

/**
 * One explicit Euler step of the 5-point Laplacian at one interior point:
 * u' = u + r·(n + s + e + w − 4u) + dt·source, with r = alpha·dt/h².
 */
SHARDRUN_HOST_DEVICE inline double heat2d_point(double center, double north, double south, double east,
                                                double west, double r, double dt_source)
{
    return center + r * (north + south + east + west - 4.0 * center) + dt_source;
}

}  // namespace shardrun::kernels
