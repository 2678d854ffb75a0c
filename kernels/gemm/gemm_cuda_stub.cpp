#include "kernels/common/errors.hpp"
#include "kernels/gemm/gemm.hpp"

namespace shardrun::kernels::cuda {

GemmTiming gemm(const Device&, const GemmShape&, const float*, const float*, float*, int)
{
    throw NotCompiled("gemm: this shardrun was built without CUDA; use device: cpu");
}

GemmTiming gemm(const Device&, const GemmShape&, const double*, const double*, double*, int)
{
    throw NotCompiled("gemm: this shardrun was built without CUDA; use device: cpu");
}

}  // namespace shardrun::kernels::cuda
