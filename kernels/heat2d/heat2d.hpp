#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/device.hpp"

namespace shardrun::kernels {

/**
 * u_t = alpha·(u_xx + u_yy) + source on a grid of nx × ny points with spacing
 * h = 1/(nx-1) in both directions (x in [0,1], y in [0,(ny-1)·h]); Dirichlet boundaries
 * held at `boundary`. Initial field: amplitude·sin(pi·x/Lx)·sin(pi·y/Ly) + boundary.
 */
struct Heat2dParams {
    std::int64_t nx = 0;
    std::int64_t ny = 0;
    double alpha = 0.0;
    double dt = 0.0;
    std::int64_t steps = 0;
    double source = 0.0;     ///< constant heating rate inside the domain
    double amplitude = 1.0;  ///< of the initial sine mode
    double boundary = 0.0;   ///< Dirichlet value on all four edges
};

/** Grid spacing h = 1/(nx-1). */
double heat2d_spacing(const Heat2dParams& params);
/** The explicit scheme's stability limit dx²/(4·alpha). */
double heat2d_stable_dt(const Heat2dParams& params);

/**
 * Throws InvalidKernelArgument for nx, ny < 3, steps < 0, alpha <= 0, dt <= 0, non-finite
 * values, dt above the stability limit (the limit is in the message) or a grid larger than memory.
 */
void validate_heat2d(const Heat2dParams& params);

/** The initial field, ny rows of nx values. */
std::vector<double> heat2d_initial(const Heat2dParams& params);

#define SHARDRUN_DECLARE_HEAT2D_KERNEL \
    void heat2d(const Device& device, const Heat2dParams& params, double* field)

namespace cpu {
/** Advances `field` (ny × nx, boundaries included) by params.steps steps; OpenMP over rows. */
SHARDRUN_DECLARE_HEAT2D_KERNEL;
}  // namespace cpu

namespace cuda {
/** The same on the GPU: one launch per step on the rank's stream. */
SHARDRUN_DECLARE_HEAT2D_KERNEL;
}  // namespace cuda

/** The CUDA backend's entry for heat2d (kernels/common/cuda_kernel_list.hpp.in says how). */
#define SHARDRUN_HEAT2D_CUDA_TABLE(X) \
    X(cuda, heat2d, heat2d, "heat2d", SHARDRUN_DECLARE_HEAT2D_KERNEL, (device, params, field))

inline SHARDRUN_DECLARE_HEAT2D_KERNEL
{
    switch (device.kind) {
    case DeviceKind::cuda: return cuda::heat2d(device, params, field);
    case DeviceKind::cpu: break;
    }
    cpu::heat2d(device, params, field);
}

namespace reference {
/** What heat2d computes: params.steps explicit steps of the 5-point scheme, one point at a time (heat2d_check.cpp). */
std::vector<double> heat2d(const Heat2dParams& params, std::vector<double> field);
}  // namespace reference

}  // namespace shardrun::kernels
