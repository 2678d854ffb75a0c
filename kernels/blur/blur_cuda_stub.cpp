#include "kernels/blur/blur.hpp"
#include "kernels/common/errors.hpp"

namespace shardrun::kernels::cuda {

void blur(const Device&, const BlurShape&, const float*, float*)
{
    throw NotCompiled("blur: this shardrun was built without CUDA; use device: cpu");
}

}  // namespace shardrun::kernels::cuda
