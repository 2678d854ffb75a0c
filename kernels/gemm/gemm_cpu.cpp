#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "kernels/common/checks.hpp"
#include "kernels/common/errors.hpp"
#include "kernels/gemm/gemm.hpp"

namespace shardrun::kernels {

void validate_gemm(const GemmShape& shape, int repeats, std::size_t element_size)
{
    require_positive("m", shape.m);
    require_positive("n", shape.n);
    require_positive("k", shape.k);
    require_positive("repeats", repeats);
    constexpr auto blas_limit = std::numeric_limits<int>::max();
    if (shape.m > blas_limit || shape.n > blas_limit || shape.k > blas_limit) {
        SHARDRUN_THROW(InvalidKernelArgument, "n", "gemm sizes must fit a 32-bit BLAS integer");
    }
    const auto bytes = buffer_bytes({shape.m, shape.k}, element_size) + buffer_bytes({shape.k, shape.n}, element_size) +
                       buffer_bytes({shape.m, shape.n}, element_size);
    require_host_memory(bytes, "gemm");
}

namespace cpu {
namespace {

void blas_call(const GemmShape& s, const float* a, const float* b, float* c)
{
    // C = 1·A·B + 0·C, row-major, no transposes
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m), static_cast<int>(s.n),
                static_cast<int>(s.k), 1.0f, a, static_cast<int>(s.k), b, static_cast<int>(s.n), 0.0f, c,
                static_cast<int>(s.n));
}

void blas_call(const GemmShape& s, const double* a, const double* b, double* c)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m), static_cast<int>(s.n),
                static_cast<int>(s.k), 1.0, a, static_cast<int>(s.k), b, static_cast<int>(s.n), 0.0, c,
                static_cast<int>(s.n));
}

template <typename T>
GemmTiming timed_gemm(const Device& device, const GemmShape& shape, const T* a, const T* b, T* c, int repeats)
{
    validate_gemm(shape, repeats, sizeof(T));
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < repeats; ++r) {
        device.stop.throw_if_stopped("gemm");  // between repeats: one BLAS call is not cut
        const auto start = std::chrono::steady_clock::now();
        blas_call(shape, a, b, c);
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        best = std::min(best, elapsed.count());
    }
    const double flops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
    return {best, best > 0 ? flops / best / 1e9 : 0.0};
}

}  // namespace

GemmTiming gemm(const Device& device, const GemmShape& shape, const float* a, const float* b, float* c, int repeats)
{
    return timed_gemm(device, shape, a, b, c, repeats);
}

GemmTiming gemm(const Device& device, const GemmShape& shape, const double* a, const double* b, double* c, int repeats)
{
    return timed_gemm(device, shape, a, b, c, repeats);
}

}  // namespace cpu
}  // namespace shardrun::kernels
