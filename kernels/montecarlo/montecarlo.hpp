#pragma once

#include <cstdint>

#include "kernels/common/device.hpp"
#include "kernels/montecarlo/montecarlo_element.hpp"

namespace shardrun::kernels {

/**
 * Exact partial sums over a range of paths. Payoffs are accumulated as fixed-point integers
 * (payoff/spot in units of 2^-24), so sums over any partition of the paths — threads,
 * blocks, ranks — add up to the same bits (integer addition is associative).
 */
struct MonteCarloSums {
    std::int64_t paths = 0;
    std::int64_t payoff = 0;         ///< Σ quantized payoff/spot
    std::int64_t payoff_squared = 0; ///< Σ quantized (payoff/spot)²

    /** Adds `other`; throws InvalidKernelArgument when the fixed-point sums would overflow. */
    MonteCarloSums& operator+=(const MonteCarloSums& other);
};

/** Discounted price and its standard error from complete sums. */
struct MonteCarloPrice {
    double price = 0.0;
    double standard_error = 0.0;
};

/** Throws InvalidKernelArgument for non-positive spot, strike, volatility, maturity or non-finite rate. */
void validate_option(const OptionParams& option);

/** Price and standard error of the sums of `sums.paths` paths (>= 2). */
MonteCarloPrice montecarlo_price(const OptionParams& option, const MonteCarloSums& sums);

/** Closed-form Black–Scholes price of the European call. */
double black_scholes_call(const OptionParams& option);

#define SHARDRUN_DECLARE_MONTECARLO_KERNEL                                                                         \
    MonteCarloSums montecarlo_sums(const Device& device, const OptionParams& option, std::uint64_t seed,            \
                                   std::int64_t first_path, std::int64_t path_count)

namespace cpu {
/** Paths [first_path, first_path + path_count); OpenMP with an integer reduction. */
SHARDRUN_DECLARE_MONTECARLO_KERNEL;
}  // namespace cpu

namespace cuda {
/** The same on the GPU: per-block integer sums, added on the host. */
SHARDRUN_DECLARE_MONTECARLO_KERNEL;
}  // namespace cuda

/** The CUDA backend's entry for montecarlo (kernels/common/cuda_kernel_list.hpp.in says how). */
#define SHARDRUN_MONTECARLO_CUDA_TABLE(X)                                                      \
    X(cuda, montecarlo_sums, montecarlo_sums, "montecarlo", SHARDRUN_DECLARE_MONTECARLO_KERNEL, \
      (device, option, seed, first_path, path_count))

inline SHARDRUN_DECLARE_MONTECARLO_KERNEL
{
    switch (device.kind) {
    case DeviceKind::cuda: return cuda::montecarlo_sums(device, option, seed, first_path, path_count);
    case DeviceKind::cpu: break;
    }
    return cpu::montecarlo_sums(device, option, seed, first_path, path_count);
}

namespace reference {
/** Mean discounted payoff of paths [0, paths) summed in float64, no fixed point (montecarlo_check.cpp). */
double montecarlo(const OptionParams& option, std::uint64_t seed, std::int64_t paths);
}  // namespace reference

}  // namespace shardrun::kernels
