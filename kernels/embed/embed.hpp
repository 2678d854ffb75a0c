#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/device.hpp"
#include "kernels/embed/embed_element.hpp"

namespace shardrun::kernels {

/** rows × input_dim inputs times an input_dim × output_dim weight matrix (row-major). */
struct EmbedShape {
    std::int64_t rows = 0;
    std::int64_t input_dim = 0;
    std::int64_t output_dim = 0;
    Activation activation = Activation::gelu;
};

/** "relu", "gelu", "tanh" or "identity"; throws InvalidKernelArgument("activation") otherwise. */
Activation parse_activation(const std::string& name);
const char* activation_name(Activation activation) noexcept;

/** Throws InvalidKernelArgument for sizes <= 0 or buffers larger than host memory. */
void validate_embed(const EmbedShape& shape);

/**
 * embeddings = normalise(activation(inputs · weights)), each output row scaled to unit L2 norm
 * (rows whose norm is 0 stay 0).
 */
#define SHARDRUN_DECLARE_EMBED_KERNEL \
    void embed(const Device& device, const EmbedShape& shape, const float* inputs, const float* weights, float* embeddings)

namespace cpu {
/** OpenBLAS sgemm, then activation and normalisation, OpenMP over rows. */
SHARDRUN_DECLARE_EMBED_KERNEL;
}  // namespace cpu

namespace cuda {
/** cuBLAS sgemm, then one block per row for activation and normalisation. */
SHARDRUN_DECLARE_EMBED_KERNEL;
}  // namespace cuda

/** The CUDA backend's entry for embed (kernels/common/cuda_kernel_list.hpp.in says how). */
#define SHARDRUN_EMBED_CUDA_TABLE(X) \
    X(cuda, embed, embed, "embed", SHARDRUN_DECLARE_EMBED_KERNEL, (device, shape, inputs, weights, embeddings))

inline SHARDRUN_DECLARE_EMBED_KERNEL
{
    switch (device.kind) {
    case DeviceKind::cuda: return cuda::embed(device, shape, inputs, weights, embeddings);
    case DeviceKind::cpu: break;
    }
    cpu::embed(device, shape, inputs, weights, embeddings);
}

namespace reference {
/** What embed computes: act(X·W) normalised per row, in float64 (embed_check.cpp). */
std::vector<double> embed(const EmbedShape& shape, const float* inputs, const float* weights);
}  // namespace reference

}  // namespace shardrun::kernels
