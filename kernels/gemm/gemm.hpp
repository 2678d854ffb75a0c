#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/device.hpp"

namespace shardrun::kernels {

/** C[m x n] = A[m x k] · B[k x n], all row-major. */
struct GemmShape {
    std::int64_t m = 0;
    std::int64_t n = 0;
    std::int64_t k = 0;
};

/** What a timed GEMM reports. */
struct GemmTiming {
    double seconds = 0.0;  ///< best time of one product over the repeats (warm-up excluded)
    double gflops = 0.0;   ///< 2·m·n·k / seconds / 1e9
};

/** Throws InvalidKernelArgument for sizes or repeats <= 0 or buffers larger than host memory. */
void validate_gemm(const GemmShape& shape, int repeats, std::size_t element_size);

// One signature, expanded for each backend and element type. The product runs `repeats`
// times (after one untimed warm-up on CUDA); C holds the last product.
#define SHARDRUN_DECLARE_GEMM_KERNEL(T) \
    GemmTiming gemm(const Device& device, const GemmShape& shape, const T* a, const T* b, T* c, int repeats)

namespace cpu {
/** OpenBLAS cblas_sgemm / cblas_dgemm. */
SHARDRUN_DECLARE_GEMM_KERNEL(float);
SHARDRUN_DECLARE_GEMM_KERNEL(double);
}  // namespace cpu

namespace cuda {
/** cuBLAS on the rank's stream; inputs staged through pinned buffers. */
SHARDRUN_DECLARE_GEMM_KERNEL(float);
SHARDRUN_DECLARE_GEMM_KERNEL(double);
}  // namespace cuda

/** The CUDA backend's entries for gemm (kernels/common/cuda_kernel_list.hpp.in says how). */
#define SHARDRUN_GEMM_CUDA_TABLE(X)                                                                          \
    X(cuda, gemm_float, gemm, "gemm", SHARDRUN_DECLARE_GEMM_KERNEL(float), (device, shape, a, b, c, repeats)) \
    X(cuda, gemm_double, gemm, "gemm", SHARDRUN_DECLARE_GEMM_KERNEL(double), (device, shape, a, b, c, repeats))

/** Runs on device.kind's backend. */
template <typename T>
GemmTiming gemm(const Device& device, const GemmShape& shape, const T* a, const T* b, T* c, int repeats)
{
    switch (device.kind) {
    case DeviceKind::cuda: return cuda::gemm(device, shape, a, b, c, repeats);
    case DeviceKind::cpu: break;
    }
    return cpu::gemm(device, shape, a, b, c, repeats);
}

namespace reference {
/** What gemm computes: C = A·B with a float64 triple loop (slow on purpose; gemm_check.cpp). */
std::vector<double> gemm(const GemmShape& shape, const float* a, const float* b);
std::vector<double> gemm(const GemmShape& shape, const double* a, const double* b);
}  // namespace reference

}  // namespace shardrun::kernels
