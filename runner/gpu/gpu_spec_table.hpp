#pragma once

// Peak dense throughput per GPU model, from NVIDIA's datasheets (issue 38, point 1): the floor
// of a GPU's admission check when the job has no other GPU of its model to compare it with.
// README ("GPU admission") prints the same table.
#include <optional>
#include <string>
#include <string_view>

namespace shardrun::gpu {

/** One model's peak dense TFLOP/s (no sparsity); 0 where the model lacks the type or the sheet gives none. */
struct GpuSpec {
    std::string_view model;  ///< "H100 SXM"
    double bf16 = 0;         ///< tensor cores, fp32 accumulate
    double fp32 = 0;         ///< the FP32 units (cuBLAS sgemm without TF32)
    double fp64 = 0;         ///< FP64 tensor cores where the model has them (cuBLAS dgemm uses them)

    /** The peak for "bf16", "fp32" or "fp64"; 0 when not listed. */
    double peak(std::string_view precision) const noexcept;
};

/**
 * The spec of the GPU NVML or CUDA calls `device_name` ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB",
 * "NVIDIA L4"): the first model whose marker the name holds, most specific first (H100 PCIe before
 * H100, L40S before L4); nullopt for a model not in the table and for a MIG instance (a slice of the board).
 */
std::optional<GpuSpec> spec_of(std::string_view device_name);

}  // namespace shardrun::gpu
