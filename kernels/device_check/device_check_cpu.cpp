#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "kernels/common/checks.hpp"
#include "kernels/device_check/device_check.hpp"

namespace shardrun::kernels {

double median_seconds(double* seconds, int count)
{
    if (count <= 0) return 0;
    std::sort(seconds, seconds + count);
    return count % 2 == 1 ? seconds[count / 2] : (seconds[count / 2 - 1] + seconds[count / 2]) / 2;
}

namespace cpu {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void product(std::int64_t n, const float* a, const float* b, float* c)
{
    const int m = static_cast<int>(n);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a, m, b, m, 0.0f, c, m);
}

void product(std::int64_t n, const double* a, const double* b, double* c)
{
    const int m = static_cast<int>(n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, a, m, b, m, 0.0, c, m);
}

/** Runs `once` untimed, then until half the budget is spent (3..1000 times); the median of the timed runs. */
template <typename Once>
std::pair<double, int> repeat_for(double budget_seconds, Once once)
{
    once();
    std::vector<double> seconds;
    const auto started = Clock::now();
    while (seconds.size() < 3 || (seconds.size() < 1000 && since(started) < budget_seconds / 2)) {
        const auto start = Clock::now();
        once();
        seconds.push_back(since(start));
    }
    const int count = static_cast<int>(seconds.size());
    return {median_seconds(seconds.data(), count), count};
}

template <typename T>
std::pair<double, int> timed_products(std::int64_t n, double budget_seconds)
{
    const auto elements = static_cast<std::size_t>(n * n);
    require_host_memory(3 * elements * sizeof(T), "gpu_admission");
    std::vector<T> a(elements, T(1) / T(3)), b(elements, T(2) / T(3)), c(elements);
    return repeat_for(budget_seconds, [&] { product(n, a.data(), b.data(), c.data()); });
}

}  // namespace

SHARDRUN_DECLARE_DEVICE_CHECK_KERNEL
{
    (void)device;
    require_positive("n", n);
    require_positive("copy_bytes", copy_bytes);
    DeviceCheckTiming timing;
    auto [gemm, gemm_repeats] = precision == CheckPrecision::fp64 ? timed_products<double>(n, budget_seconds)
                                                                  : timed_products<float>(n, budget_seconds);
    timing.gemm_seconds = gemm;
    timing.gemm_repeats = gemm_repeats;
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    timing.gemm_tflops = gemm > 0 ? flops / gemm / 1e12 : 0;
    const auto bytes = static_cast<std::size_t>(copy_bytes);
    require_host_memory(2 * bytes, "gpu_admission");
    std::vector<char> from(bytes, 1), to(bytes);
    auto [copy, copy_repeats] = repeat_for(budget_seconds, [&] { std::memcpy(to.data(), from.data(), bytes); });
    timing.copy_seconds = copy;
    timing.copy_repeats = copy_repeats;
    timing.copy_gbps = copy > 0 ? static_cast<double>(bytes) / copy / 1e9 : 0;
    return timing;
}

}  // namespace cpu
}  // namespace shardrun::kernels
