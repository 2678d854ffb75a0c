#include "kernels/selftest/selftest.hpp"

#include <exception>
#include <utility>

namespace shardrun::kernels {
const std::vector<SelftestCase>& selftest_cases_list()
{
    // One row of `shardrun selftest` each; "montecarlo/bs" checks montecarlo against Black-Scholes.
    static const std::vector<SelftestCase> cases = {
        {"gemm", "float32", selftest_cases::gemm_float32},
        {"gemm", "float64", selftest_cases::gemm_float64},
        {"blur", "float32", selftest_cases::blur_float32},
        {"heat2d", "float64", selftest_cases::heat2d_float64},
        {"montecarlo", "float64", selftest_cases::montecarlo_paths},
        {"montecarlo/bs", "float64", selftest_cases::montecarlo_closed_form},
        {"embed", "float32", selftest_cases::embed_float32},
    };
    return cases;
}

std::vector<SelftestRow> run_selftest(const Device& device)
{
    std::vector<SelftestRow> rows;
    for (const auto& c : selftest_cases_list()) {
        try {
            auto row = c.run(device);
            row.passed = row.error <= row.threshold;  // NaN fails
            rows.push_back(std::move(row));
        } catch (const std::exception& e) {
            SelftestRow failed{c.kernel, device.label(), c.dtype, "", 0.0, 0.0, false, e.what()};
            rows.push_back(std::move(failed));
        }
    }
    return rows;
}

}  // namespace shardrun::kernels
