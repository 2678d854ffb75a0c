#include "kernels/common/errors.hpp"
#include "kernels/embed/embed.hpp"

namespace shardrun::kernels::cuda {

void embed(const Device&, const EmbedShape&, const float*, const float*, float*)
{
    throw NotCompiled("embed: this shardrun was built without CUDA; use device: cpu");
}

}  // namespace shardrun::kernels::cuda
