#include "runner/tasks/kernel_kinds.hpp"

#include "runner/tasks/blur_kind.hpp"
#include "runner/tasks/embed_kind.hpp"
#include "runner/tasks/gemm_kind.hpp"
#include "runner/tasks/heat2d_kind.hpp"
#include "runner/tasks/montecarlo_kind.hpp"

namespace shardrun::tasks {

std::vector<KernelKindEntry> kernel_kinds()
{
    return {
        {"gemm", "matrix product C = A B on the CPU (OpenBLAS) or GPU (cuBLAS); seconds, GFLOP/s, checksum",
         &GemmKind::parameters(), [] { return std::make_unique<GemmKind>(); }},
        {"blur", "Gaussian blur of images from data.input (or synthetic ones), a chunk of images per task",
         &BlurKind::parameters(), [] { return std::make_unique<BlurKind>(); }},
        {"heat2d", "explicit 2-D heat equation on an nx x ny grid; final field, total heat, peak",
         &Heat2dKind::parameters(), [] { return std::make_unique<Heat2dKind>(); }},
        {"montecarlo", "Monte Carlo price of a European call, the same bits on any device; price, standard error",
         &MonteCarloKind::parameters(), [] { return std::make_unique<MonteCarloKind>(); }},
        {"embed", "rows of data.input (or synthetic ones) times a weight matrix, activated, unit length",
         &EmbedKind::parameters(), [] { return std::make_unique<EmbedKind>(); }},
    };
}

}  // namespace shardrun::tasks
