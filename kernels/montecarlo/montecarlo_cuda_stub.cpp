#include "kernels/common/errors.hpp"
#include "kernels/montecarlo/montecarlo.hpp"

namespace shardrun::kernels::cuda {

MonteCarloSums montecarlo_sums(const Device&, const OptionParams&, std::uint64_t, std::int64_t, std::int64_t)
{
    throw NotCompiled("montecarlo: this shardrun was built without CUDA; use device: cpu");
}

}  // namespace shardrun::kernels::cuda
