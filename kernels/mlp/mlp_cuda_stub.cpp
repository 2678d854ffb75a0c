#include "kernels/common/errors.hpp"
#include "kernels/mlp/mlp.hpp"

namespace shardrun::kernels::mlp::cuda {
namespace {

[[noreturn]] void not_compiled()
{
    throw NotCompiled("train: this shardrun was built without CUDA; use device: cpu");
}

}  // namespace

void matmul(const Device&, bool, bool, int, int, int, float, const float*, const float*, float, float*) { not_compiled(); }
void add_bias(const Device&, int, int, const float*, bool, float*) { not_compiled(); }
void relu_backward(const Device&, std::size_t, const float*, float*) { not_compiled(); }
void column_sums(const Device&, int, int, const float*, float*) { not_compiled(); }
BatchScore softmax_cross_entropy(const Device&, int, int, const float*, const std::int32_t*, float, float*)
{
    not_compiled();
}
BatchScore score(const Device&, int, int, const float*, const std::int32_t*) { not_compiled(); }
void sgd_momentum(const Device&, std::size_t, float, float, const float*, float*, float*) { not_compiled(); }
void adam(const Device&, std::size_t, float, float, float, float, int, const float*, float*, float*, float*)
{
    not_compiled();
}

}  // namespace shardrun::kernels::mlp::cuda
