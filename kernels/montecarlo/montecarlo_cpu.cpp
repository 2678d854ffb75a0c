#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/common/checks.hpp"
#include "kernels/common/errors.hpp"
#include "kernels/montecarlo/montecarlo.hpp"
#include "kernels/montecarlo/montecarlo_element.hpp"

namespace shardrun::kernels {

MonteCarloSums& MonteCarloSums::operator+=(const MonteCarloSums& other)
{
    if (__builtin_add_overflow(paths, other.paths, &paths) || __builtin_add_overflow(payoff, other.payoff, &payoff) ||
        __builtin_add_overflow(payoff_squared, other.payoff_squared, &payoff_squared)) {
        SHARDRUN_THROW(InvalidKernelArgument, "paths", "montecarlo: the fixed-point payoff sums overflow; use fewer paths");
    }
    return *this;
}

void validate_option(const OptionParams& option)
{
    require_finite("spot", option.spot, true);
    require_finite("strike", option.strike, true);
    require_finite("rate", option.rate);
    require_finite("volatility", option.volatility, true);
    require_finite("maturity", option.maturity, true);
    // Bounds that keep every quantized (payoff/spot)^2 far below the int64 range.
    if (option.volatility * std::sqrt(option.maturity) > 1.5) {
        SHARDRUN_THROW(InvalidKernelArgument, "volatility", "volatility*sqrt(maturity) must be <= 1.5 for the fixed-point sums");
    }
    if (std::abs(option.rate * option.maturity) > 1.0) {
        SHARDRUN_THROW(InvalidKernelArgument, "rate", "|rate*maturity| must be <= 1 for the fixed-point sums");
    }
}

MonteCarloPrice montecarlo_price(const OptionParams& option, const MonteCarloSums& sums)
{
    if (sums.paths < 2) SHARDRUN_THROW(InvalidKernelArgument, "paths", "montecarlo needs at least 2 paths");
    const double n = static_cast<double>(sums.paths);
    const double mean = static_cast<double>(sums.payoff) / montecarlo_scale / n;
    const double mean_square = static_cast<double>(sums.payoff_squared) / montecarlo_scale / n;
    const double variance = std::max(0.0, (mean_square - mean * mean) * n / (n - 1.0));
    const double discount = std::exp(-option.rate * option.maturity) * option.spot;
    return {discount * mean, discount * std::sqrt(variance / n)};
}

double black_scholes_call(const OptionParams& o)
{
    const double root_t = std::sqrt(o.maturity);
    const double d1 = (std::log(o.spot / o.strike) + (o.rate + 0.5 * o.volatility * o.volatility) * o.maturity) /
                      (o.volatility * root_t);
    const double d2 = d1 - o.volatility * root_t;
    const auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
    return o.spot * cdf(d1) - o.strike * std::exp(-o.rate * o.maturity) * cdf(d2);
}

namespace cpu {

namespace {
// Paths between two looks at the stop token: tens of milliseconds on one core. The sums are
// integers, so summing block by block gives the same bits as one loop.
constexpr std::int64_t paths_per_block = std::int64_t{1} << 22;
}  // namespace

MonteCarloSums montecarlo_sums(const Device& device, const OptionParams& option, std::uint64_t seed,
                               std::int64_t first_path, std::int64_t path_count)
{
    validate_option(option);
    require_positive("paths", path_count);
    if (first_path < 0) SHARDRUN_THROW(InvalidKernelArgument, "paths", "montecarlo: first path must be >= 0");
    std::int64_t sum = 0, sum_squared = 0;
    for (std::int64_t block = 0; block < path_count; block += paths_per_block) {
        device.stop.throw_if_stopped("montecarlo");
        const std::int64_t end = std::min(path_count, block + paths_per_block);
#pragma omp parallel for schedule(static) reduction(+ : sum, sum_squared)
        for (std::int64_t p = block; p < end; ++p) {
            const double x = relative_call_payoff(option, path_normal(seed, static_cast<std::uint64_t>(first_path + p)));
            sum += quantize_payoff(x);
            sum_squared += quantize_payoff(x * x);
        }
    }
    return {path_count, sum, sum_squared};
}

}  // namespace cpu
}  // namespace shardrun::kernels
