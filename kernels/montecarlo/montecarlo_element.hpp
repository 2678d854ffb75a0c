#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/host_device.hpp"
#include "kernels/common/philox.hpp"

namespace shardrun::kernels {

/** A European call under Black–Scholes. */
struct OptionParams {
    double spot = 100.0;
    double strike = 100.0;
    double rate = 0.05;
    double volatility = 0.2;
    double maturity = 1.0;  ///< years
};

/** Fixed-point scale of the accumulated payoffs: 2^24 units per spot. */
constexpr double montecarlo_scale = 16777216.0;

/** The standard normal of path `path`: Box–Muller on one Philox block. */
SHARDRUN_HOST_DEVICE inline double path_normal(std::uint64_t seed, std::uint64_t path)
{
    const PhiloxBlock block = philox_at(seed, path, 0x6d63);
    const double u1 = uniform_open(block.w[0], block.w[1]);
    const double u2 = uniform_open(block.w[2], block.w[3]);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/** Call payoff divided by spot at maturity for the normal draw z. */
SHARDRUN_HOST_DEVICE inline double relative_call_payoff(const OptionParams& o, double z)
{
    const double drift = (o.rate - 0.5 * o.volatility * o.volatility) * o.maturity;
    const double terminal = exp(drift + o.volatility * sqrt(o.maturity) * z);
    const double moneyness = o.strike / o.spot;
    return terminal > moneyness ? terminal - moneyness : 0.0;
}

/** Rounds a non-negative value to the fixed-point grid (saturating far beyond any real payoff). */
SHARDRUN_HOST_DEVICE inline std::int64_t quantize_payoff(double x)
{
    const double scaled = x * montecarlo_scale + 0.5;
    return scaled < 4.0e18 ? static_cast<std::int64_t>(scaled) : static_cast<std::int64_t>(4.0e18);
}

}  // namespace shardrun::kernels
