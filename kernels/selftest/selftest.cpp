#include "kernels/selftest/selftest.hpp"

#include <exception>
#include <utility>

namespace shardrun::kernels {
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
