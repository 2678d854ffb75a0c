// heat2d's float64 reference and its `shardrun selftest` case.
#include <vector>

#include "kernels/heat2d/heat2d.hpp"
#include "kernels/selftest/selftest_case_support.hpp"

namespace shardrun::kernels {
namespace {

SelftestRow heat2d_float64(const Device& device)
{
    Heat2dParams params{33, 29, 0.7, 0.0, 50, 1.5, 2.0, 0.1};
    params.dt = 0.9 * heat2d_stable_dt(params);
    auto field = heat2d_initial(params);
    const auto want = reference::heat2d(params, field);
    heat2d(device, params, field.data());
    return {"heat2d", device.label(), "float64", selftest_support::size_text(params.nx, params.ny, params.steps),
            reference::relative_error(field, want), 1e-12};
}

}  // namespace

std::vector<double> reference::heat2d(const Heat2dParams& p, std::vector<double> field)
{
    const double h = 1.0 / static_cast<double>(p.nx - 1);
    std::vector<double> next = field;
    for (std::int64_t step = 0; step < p.steps; ++step) {
        for (std::int64_t j = 1; j + 1 < p.ny; ++j) {
            for (std::int64_t i = 1; i + 1 < p.nx; ++i) {
                const auto c = j * p.nx + i;
                const double laplacian = (field[c - 1] + field[c + 1] + field[c - p.nx] + field[c + p.nx] - 4 * field[c]) / (h * h);
                next[c] = field[c] + p.dt * (p.alpha * laplacian + p.source);
            }
        }
        field.swap(next);
    }
    return field;
}

std::vector<SelftestCase> heat2d_selftest_cases() { return {{"heat2d", "float64", heat2d_float64}}; }

}  // namespace shardrun::kernels
