// montecarlo's float64 reference and its `shardrun selftest` cases: against the reference, and
// "montecarlo/bs" against the Black-Scholes closed form.
#include <cmath>
#include <vector>

#include "kernels/montecarlo/montecarlo.hpp"
#include "kernels/selftest/selftest_case_support.hpp"

namespace shardrun::kernels {
namespace {

SelftestRow montecarlo_paths(const Device& device)
{
    const OptionParams option{100.0, 95.0, 0.02, 0.3, 0.75};
    const std::int64_t paths = 100'001;
    const auto price = montecarlo_price(option, montecarlo_sums(device, option, 31, 0, paths));
    const double want = reference::montecarlo(option, 31, paths);
    return {"montecarlo", device.label(), "float64", selftest_support::size_text(paths),
            std::abs(price.price - want) / want, 1e-6};
}

SelftestRow montecarlo_closed_form(const Device& device)
{
    const OptionParams option{100.0, 110.0, 0.05, 0.2, 1.0};
    const auto price = montecarlo_price(option, montecarlo_sums(device, option, 5, 0, 200'000));
    const double sigmas = std::abs(price.price - black_scholes_call(option)) / price.standard_error;
    return {"montecarlo/bs", device.label(), "float64", selftest_support::size_text(200'000), sigmas, 3.0, false,
            "error in standard errors from the closed form"};
}

}  // namespace

double reference::montecarlo(const OptionParams& option, std::uint64_t seed, std::int64_t paths)
{
    double sum = 0.0;
    for (std::int64_t p = 0; p < paths; ++p) {
        sum += relative_call_payoff(option, path_normal(seed, static_cast<std::uint64_t>(p)));
    }
    return std::exp(-option.rate * option.maturity) * option.spot * sum / static_cast<double>(paths);
}

std::vector<SelftestCase> montecarlo_selftest_cases()
{
    return {{"montecarlo", "float64", montecarlo_paths}, {"montecarlo/bs", "float64", montecarlo_closed_form}};
}

}  // namespace shardrun::kernels
