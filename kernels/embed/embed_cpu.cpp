#include <cblas.h>

#include <limits>
#include <string>

#include "kernels/common/checks.hpp"
#include "kernels/common/errors.hpp"
#include "kernels/embed/embed.hpp"
#include "kernels/embed/embed_element.hpp"

namespace shardrun::kernels {

Activation parse_activation(const std::string& name)
{
    if (name == "relu") return Activation::relu;
    if (name == "gelu") return Activation::gelu;
    if (name == "tanh") return Activation::tanh;
    if (name == "identity") return Activation::identity;
    SHARDRUN_THROW(InvalidKernelArgument, "activation",
                                "activation '" + name + "' is unknown; allowed: relu, gelu, tanh, identity");
}

const char* activation_name(Activation activation) noexcept
{
    switch (activation) {
    case Activation::relu: return "relu";
    case Activation::gelu: return "gelu";
    case Activation::tanh: return "tanh";
    case Activation::identity: break;
    }
    return "identity";
}

void validate_embed(const EmbedShape& shape)
{
    require_positive("rows", shape.rows);
    require_positive("input_dim", shape.input_dim);
    require_positive("output_dim", shape.output_dim);
    constexpr auto blas_limit = std::numeric_limits<int>::max();
    if (shape.rows > blas_limit || shape.input_dim > blas_limit || shape.output_dim > blas_limit) {
        SHARDRUN_THROW(InvalidKernelArgument, "rows", "embed sizes must fit a 32-bit BLAS integer");
    }
    const auto bytes = buffer_bytes({shape.rows, shape.input_dim}, sizeof(float)) +
                       buffer_bytes({shape.input_dim, shape.output_dim}, sizeof(float)) +
                       buffer_bytes({shape.rows, shape.output_dim}, sizeof(float));
    require_host_memory(bytes, "embed");
}

namespace cpu {

void embed(const Device&, const EmbedShape& shape, const float* inputs, const float* weights, float* embeddings)
{
    validate_embed(shape);
    const int m = static_cast<int>(shape.rows), k = static_cast<int>(shape.input_dim);
    const int n = static_cast<int>(shape.output_dim);
    // E = X · W
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, inputs, k, weights, n, 0.0f, embeddings, n);
#pragma omp parallel for schedule(static)
    for (int row = 0; row < m; ++row) {
        float* e = embeddings + static_cast<std::int64_t>(row) * n;
        float sum_squares = 0.0f;
        for (int j = 0; j < n; ++j) {  // e = act(e), |e|^2
            e[j] = activate(shape.activation, e[j]);
            sum_squares += e[j] * e[j];
        }
        const float scale = unit_scale(sum_squares);
        for (int j = 0; j < n; ++j) e[j] *= scale;  // e = e / |e|
    }
}

}  // namespace cpu
}  // namespace shardrun::kernels
