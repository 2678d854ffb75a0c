// embed's float64 reference and its `shardrun selftest` case.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/embed/embed.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/selftest/selftest_case_support.hpp"

namespace shardrun::kernels {
namespace {

double activate64(Activation activation, double x)
{
    switch (activation) {
    case Activation::relu: return std::max(x, 0.0);
    case Activation::gelu: return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case Activation::tanh: return std::tanh(x);
    case Activation::identity: break;
    }
    return x;
}

SelftestRow embed_float32(const Device& device)
{
    using namespace selftest_support;
    const EmbedShape shape{50, 40, 24, Activation::gelu};
    const auto x = random_values<float>(shape.rows * shape.input_dim, 41);
    const auto w = random_values<float>(shape.input_dim * shape.output_dim, 42, -0.3f, 0.3f);
    std::vector<float> e(shape.rows * shape.output_dim);
    embed(device, shape, x.data(), w.data(), e.data());
    const double error = reference::relative_error(e, reference::embed(shape, x.data(), w.data()));
    return {"embed", device.label(), "float32", size_text(shape.rows, shape.input_dim, shape.output_dim), error, 1e-5};
}

}  // namespace

std::vector<double> reference::embed(const EmbedShape& s, const float* inputs, const float* weights)
{
    const GemmShape product{s.rows, s.output_dim, s.input_dim};
    auto e = reference::gemm(product, inputs, weights);
    for (std::int64_t row = 0; row < s.rows; ++row) {
        double* line = e.data() + row * s.output_dim;
        double sum_squares = 0.0;
        for (std::int64_t j = 0; j < s.output_dim; ++j) sum_squares += (line[j] = activate64(s.activation, line[j])) * line[j];
        const double scale = sum_squares > 0 ? 1.0 / std::sqrt(sum_squares) : 0.0;
        for (std::int64_t j = 0; j < s.output_dim; ++j) line[j] *= scale;
    }
    return e;
}

std::vector<SelftestCase> embed_selftest_cases() { return {{"embed", "float32", embed_float32}}; }

}  // namespace shardrun::kernels
