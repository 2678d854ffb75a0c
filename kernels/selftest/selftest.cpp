#include "kernels/selftest/selftest.hpp"

#include <exception>
#include <utility>

namespace shardrun::kernels {
namespace {

using Case = SelftestRow (*)(const Device&);

struct NamedCase {
    const char* kernel;
    const char* dtype;
    Case run;
};

}  // namespace

std::vector<SelftestRow> run_selftest(const Device& device)
{
    static const NamedCase cases[] = {
        {"gemm", "float32", selftest_cases::gemm_float32},
        {"gemm", "float64", selftest_cases::gemm_float64},
        {"blur", "float32", selftest_cases::blur_float32},
        {"heat2d", "float64", selftest_cases::heat2d_float64},
        {"montecarlo", "float64", selftest_cases::montecarlo_paths},
        {"montecarlo/bs", "float64", selftest_cases::montecarlo_closed_form},
        {"embed", "float32", selftest_cases::embed_float32},
    };
    std::vector<SelftestRow> rows;
    for (const auto& c : cases) {
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
