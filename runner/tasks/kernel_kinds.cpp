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
        {"gemm", [] { return std::make_unique<GemmKind>(); }},
        {"blur", [] { return std::make_unique<BlurKind>(); }},
        {"heat2d", [] { return std::make_unique<Heat2dKind>(); }},
        {"montecarlo", [] { return std::make_unique<MonteCarloKind>(); }},
        {"embed", [] { return std::make_unique<EmbedKind>(); }},
    };
}

}  // namespace shardrun::tasks
