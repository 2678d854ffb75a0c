#pragma once

// @internal The kernels the CUDA backend library serves, one line each: the table entry
// (KernelTable in cuda_backend.hpp), its fill in the library (cuda_kernel_table.cpp) and the
// binary's forwarder (cuda_calls.cpp) are all generated from this list. A new kernel whose
// header declares SHARDRUN_DECLARE_<NAME>_KERNEL adds one line:
//     X(<function>, "<kernel>", SHARDRUN_DECLARE_<NAME>_KERNEL, (<its parameter names>))
// ("<kernel>" starts the error when the backend is missing: "montecarlo needs the CUDA backend ...").
// Overloaded entry points (gemm's float and double) and the training step's helpers (mlp::) are
// written by hand beside it.
#include "kernels/blur/blur.hpp"
#include "kernels/embed/embed.hpp"
#include "kernels/heat2d/heat2d.hpp"
#include "kernels/montecarlo/montecarlo.hpp"

#define SHARDRUN_CUDA_KERNELS(X)                                                                 \
    X(blur, "blur", SHARDRUN_DECLARE_BLUR_KERNEL, (device, shape, input, output))                        \
    X(heat2d, "heat2d", SHARDRUN_DECLARE_HEAT2D_KERNEL, (device, params, field))                           \
    X(montecarlo_sums, "montecarlo", SHARDRUN_DECLARE_MONTECARLO_KERNEL, (device, option, seed, first_path, path_count)) \
    X(embed, "embed", SHARDRUN_DECLARE_EMBED_KERNEL, (device, shape, inputs, weights, embeddings))
