// gemm's float64 reference and its `shardrun selftest` cases.
#include <vector>

#include "kernels/gemm/gemm.hpp"
#include "kernels/selftest/selftest_case_support.hpp"

namespace shardrun::kernels {
namespace {

template <typename T>
std::vector<double> gemm_loop(const GemmShape& s, const T* a, const T* b)
{
    std::vector<double> c(static_cast<std::size_t>(s.m * s.n), 0.0);
    for (std::int64_t i = 0; i < s.m; ++i) {
        for (std::int64_t p = 0; p < s.k; ++p) {
            const double aip = a[i * s.k + p];
            for (std::int64_t j = 0; j < s.n; ++j) c[i * s.n + j] += aip * static_cast<double>(b[p * s.n + j]);
        }
    }
    return c;
}

template <typename T>
SelftestRow gemm_case(const Device& device, const char* dtype, double threshold)
{
    using namespace selftest_support;
    const GemmShape shape{65, 33, 47};
    const auto a = random_values<T>(shape.m * shape.k, 11), b = random_values<T>(shape.k * shape.n, 12);
    std::vector<T> c(shape.m * shape.n);
    gemm(device, shape, a.data(), b.data(), c.data(), 1);
    const double error = reference::relative_error(c, reference::gemm(shape, a.data(), b.data()));
    return {"gemm", device.label(), dtype, size_text(shape.m, shape.n, shape.k), error, threshold};
}

SelftestRow gemm_float32(const Device& device) { return gemm_case<float>(device, "float32", 1e-5); }

SelftestRow gemm_float64(const Device& device) { return gemm_case<double>(device, "float64", 1e-12); }

}  // namespace

std::vector<double> reference::gemm(const GemmShape& shape, const float* a, const float* b)
{
    return gemm_loop(shape, a, b);
}

std::vector<double> reference::gemm(const GemmShape& shape, const double* a, const double* b)
{
    return gemm_loop(shape, a, b);
}

std::vector<SelftestCase> gemm_selftest_cases()
{
    return {{"gemm", "float32", gemm_float32}, {"gemm", "float64", gemm_float64}};
}

}  // namespace shardrun::kernels
