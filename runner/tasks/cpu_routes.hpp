#pragma once

// When a built-in kernel kind is faster on the CPU than on a GPU (issue 26, point 4): the rule
// `device: auto` applies to its tasks on a rank with a GPU, written in the language of
// runner/gpu/cpu_rule.hpp. The thresholds come from `benchmarks/gpu-vs-cpu`, whose ladder
// prints `crossover: gemm n = X` and `crossover: blur height = X` on the machine it runs on;
// a job that knows better says so with `auto_device: {cpu_if: ...}`.
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace shardrun::tasks {

/**
 * gemm runs on the CPU while every dimension is below this. Measured 2026-11-26 on an H100
 * (driver 580, CUDA 13) against 16 OpenBLAS threads: n = 1000 took 9.0 ms on the CPU and
 * 0.054 ms on the GPU without copies; the three n×n float32 copies of a task add about 0.6 ms
 * at n = 1000, so the GPU still wins there by ~14x and the crossover lies well below 1000.
 * 256 is provisional until the ladder's `crossover: gemm n = X` from a real GPU replaces it.
 */
inline constexpr std::int64_t gemm_cpu_below_n = 256;

/**
 * blur runs on the CPU while the image's sides are below this. Measured 2026-11-26 on an H100
 * with copies counted (as a blur task pays them): 2048² batch 1 took 0.5 ms on the CPU and
 * 9.4 ms on the GPU, batch 2 1.5 ms / 18.6 ms, so the GPU loses at least up to 2048. 4096 is
 * provisional until the ladder's `crossover: blur height = X` from a real GPU replaces it.
 */
inline constexpr std::int64_t blur_cpu_below_side = 4096;

/** gemm's rule; m and k default to n (runner/run/task_route.cpp reads a kind's defaults). */
inline std::string gemm_cpu_if()
{
    return fmt::format("m < {0} and n < {0} and k < {0}", gemm_cpu_below_n);
}

/** blur's rule; width defaults to height. */
inline std::string blur_cpu_if() { return fmt::format("height < {0} and width < {0}", blur_cpu_below_side); }

}  // namespace shardrun::tasks
