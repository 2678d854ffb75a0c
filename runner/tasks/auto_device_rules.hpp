#pragma once

// When a built-in kernel kind is faster on the CPU than on a GPU (issue 26, point 4): the rule
// `device: auto` applies to its tasks on a rank with a GPU, written in the language of
// runner/job/auto_device_rule.hpp. The thresholds come from `benchmarks/gpu-vs-cpu`, whose ladder
// prints `crossover: gemm n = X` and `crossover: blur height = X` on the machine it runs on;
// a job that knows better says so with `auto_device: {cpu_if: ...}`.
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace shardrun::tasks {

/**
 * gemm runs on the CPU while every dimension is below this. Measured by benchmarks/gpu-vs-cpu's
 * ladder on an H200 (driver 580, CUDA 13, 2026-11-26) against 16 OpenBLAS threads, copies
 * included as a task pays them: n = 512 took 1.45 ms on the CPU and 2.17 ms on the GPU, n = 1024
 * 10.9 ms and 3.8 ms, n = 2048 85 ms and 19 ms (`crossover: gemm n = 1024`). Without copies
 * (the product alone) the GPU wins by 160-230x from n = 1000 on, H100 and H200 alike.
 */
inline constexpr std::int64_t gemm_cpu_below_n = 1024;

/**
 * blur runs on the CPU while the image's sides are below this. The same ladder on the H200 never
 * saw the GPU win, copies included: 2048² 0.8 ms on the CPU and 11 ms on the GPU, 8192² 16 ms
 * and 199 ms (`crossover: blur height = none (the CPU won up to 8192)`). 16384 is past the
 * ladder's top: the copies of a blur cost more than the CPU's whole blur at every measured size.
 */
inline constexpr std::int64_t blur_cpu_below_side = 16384;

/** gemm's rule; m and k default to n (runner/run/setup/auto_device_route.cpp reads a kind's defaults). */
inline std::string gemm_cpu_if()
{
    return fmt::format("m < {0} and n < {0} and k < {0}", gemm_cpu_below_n);
}

/** blur's rule; width defaults to height. */
inline std::string blur_cpu_if() { return fmt::format("height < {0} and width < {0}", blur_cpu_below_side); }

}  // namespace shardrun::tasks
