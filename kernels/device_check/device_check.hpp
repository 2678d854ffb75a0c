#pragma once

// The short health check a GPU rank runs before it takes work (issue 38, point 1): a GEMM at a
// fixed shape in the job's precision and a device-to-device copy, each repeated for a bounded
// time, timed on the device. The runner (runner/run/setup/gpu_admission.hpp) compares the
// figures with the job's other GPUs and the device's spec (runner/gpu/gpu_spec_table.hpp).
#include <cstdint>

#include "kernels/common/device.hpp"

namespace shardrun::kernels {

/** The element type of the admission GEMM. bf16 has no CPU BLAS: the CPU half uses float for it. */
enum class CheckPrecision : int { bf16 = 0, fp32 = 1, fp64 = 2 };

/** What the check measured: medians over the repeats (the first call of each, a warm-up, excluded). */
struct DeviceCheckTiming {
    double gemm_seconds = 0;  ///< one n x n x n product
    double gemm_tflops = 0;   ///< 2·n³ / gemm_seconds / 1e12
    int gemm_repeats = 0;
    double copy_seconds = 0;  ///< one copy of copy_bytes
    double copy_gbps = 0;     ///< copy_bytes / copy_seconds / 1e9 (bytes copied, not read + written)
    int copy_repeats = 0;
};

// The GEMM runs until half of `budget_seconds` is spent (at least 3, at most 1000 products), then
// the copy the same way: a check of budget_seconds plus set-up and one warm-up of each.
#define SHARDRUN_DECLARE_DEVICE_CHECK_KERNEL                                                               \
    DeviceCheckTiming device_check(const Device& device, CheckPrecision precision, std::int64_t n, \
                                   std::int64_t copy_bytes, double budget_seconds)

namespace cpu {
/** OpenBLAS at the shape (float for bf16) and memcpy: a reference, and the benchmark's anchor. */
SHARDRUN_DECLARE_DEVICE_CHECK_KERNEL;
}  // namespace cpu

namespace cuda {
/** cuBLAS (cublasGemmEx: bf16 in, fp32 accumulate; sgemm; dgemm) and cudaMemcpyAsync device to device. */
SHARDRUN_DECLARE_DEVICE_CHECK_KERNEL;
}  // namespace cuda

/** The CUDA backend's entry (kernels/common/cuda_kernel_list.hpp.in says how). */
#define SHARDRUN_DEVICE_CHECK_CUDA_TABLE(X)                                                          \
    X(cuda, device_check, device_check, "gpu_admission", SHARDRUN_DECLARE_DEVICE_CHECK_KERNEL, \
      (device, precision, n, copy_bytes, budget_seconds))

/** Runs on device.kind's backend. */
inline DeviceCheckTiming device_check(const Device& device, CheckPrecision precision, std::int64_t n,
                                      std::int64_t copy_bytes, double budget_seconds)
{
    if (device.kind == DeviceKind::cuda) return cuda::device_check(device, precision, n, copy_bytes, budget_seconds);
    return cpu::device_check(device, precision, n, copy_bytes, budget_seconds);
}

/** The median of `seconds` (sorted in place); 0 for none. */
double median_seconds(double* seconds, int count);

}  // namespace shardrun::kernels
