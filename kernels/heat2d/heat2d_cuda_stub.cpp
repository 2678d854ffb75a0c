#include "kernels/common/errors.hpp"
#include "kernels/heat2d/heat2d.hpp"

namespace shardrun::kernels::cuda {

void heat2d(const Device&, const Heat2dParams&, double*)
{
    throw NotCompiled("heat2d: this shardrun was built without CUDA; use device: cpu");
}

}  // namespace shardrun::kernels::cuda
