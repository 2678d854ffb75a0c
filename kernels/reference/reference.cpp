#include "kernels/reference/reference.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/blur/blur_element.hpp"

namespace shardrun::kernels::reference {
namespace {

template <typename T>
std::vector<double> gemm_loop(const GemmShape& s, const T* a, const T* b)
{
    std::vector<double> c(static_cast<std::size_t>(s.m * s.n), 0.0);
    for (std::int64_t i = 0; i < s.m; ++i) {
        for (std::int64_t p = 0; p < s.k; ++p) {
            const double aip = a[i * s.k + p];
            for (std::int64_t j = 0; j < s.n; ++j) c[i * s.n + j] += aip * static_cast<double>(b[p * s.n + j]);
        }
    }
    return c;
}

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

}  // namespace

std::vector<double> gemm(const GemmShape& shape, const float* a, const float* b) { return gemm_loop(shape, a, b); }

std::vector<double> gemm(const GemmShape& shape, const double* a, const double* b) { return gemm_loop(shape, a, b); }

std::vector<double> blur(const BlurShape& s, const float* input)
{
    const int radius = blur_radius(s.sigma);
    std::vector<double> taps(2 * radius + 1);
    double total = 0.0;
    for (int k = -radius; k <= radius; ++k) total += taps[k + radius] = gaussian_tap(k, s.sigma);
    for (auto& tap : taps) tap /= total;
    std::vector<double> out(static_cast<std::size_t>(s.images * s.height * s.width), 0.0);
    for (std::int64_t n = 0; n < s.images; ++n) {
        const float* plane = input + n * s.height * s.width;
        for (std::int64_t y = 0; y < s.height; ++y) {
            for (std::int64_t x = 0; x < s.width; ++x) {
                double sum = 0.0;
                for (int dy = -radius; dy <= radius; ++dy) {
                    const auto row = clamp_index(y + dy, s.height) * s.width;
                    for (int dx = -radius; dx <= radius; ++dx) {
                        sum += taps[dy + radius] * taps[dx + radius] * plane[row + clamp_index(x + dx, s.width)];
                    }
                }
                out[(n * s.height + y) * s.width + x] = sum;
            }
        }
    }
    return out;
}

std::vector<double> heat2d(const Heat2dParams& p, std::vector<double> field)
{
    const double h = 1.0 / static_cast<double>(p.nx - 1);
    std::vector<double> next = field;
    for (std::int64_t step = 0; step < p.steps; ++step) {
        for (std::int64_t j = 1; j + 1 < p.ny; ++j) {
            for (std::int64_t i = 1; i + 1 < p.nx; ++i) {
                const auto c = j * p.nx + i;
                const double laplacian = (field[c - 1] + field[c + 1] + field[c - p.nx] + field[c + p.nx] - 4 * field[c]) / (h * h);
                next[c] = field[c] + p.dt * (p.alpha * laplacian + p.source);
            }
        }
        field.swap(next);
    }
    return field;
}

std::vector<double> embed(const EmbedShape& s, const float* inputs, const float* weights)
{
    const GemmShape product{s.rows, s.output_dim, s.input_dim};
    auto e = gemm(product, inputs, weights);
    for (std::int64_t row = 0; row < s.rows; ++row) {
        double* line = e.data() + row * s.output_dim;
        double sum_squares = 0.0;
        for (std::int64_t j = 0; j < s.output_dim; ++j) sum_squares += (line[j] = activate64(s.activation, line[j])) * line[j];
        const double scale = sum_squares > 0 ? 1.0 / std::sqrt(sum_squares) : 0.0;
        for (std::int64_t j = 0; j < s.output_dim; ++j) line[j] *= scale;
    }
    return e;
}

double montecarlo(const OptionParams& option, std::uint64_t seed, std::int64_t paths)
{
    double sum = 0.0;
    for (std::int64_t p = 0; p < paths; ++p) {
        sum += relative_call_payoff(option, path_normal(seed, static_cast<std::uint64_t>(p)));
    }
    return std::exp(-option.rate * option.maturity) * option.spot * sum / static_cast<double>(paths);
}

template <typename T>
double relative_error(const std::vector<T>& got, const std::vector<double>& want)
{
    if (got.size() != want.size()) return INFINITY;
    double scale = 1e-300, worst = 0.0;
    for (const double w : want) scale = std::max(scale, std::abs(w));
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double diff = std::abs(static_cast<double>(got[i]) - want[i]);
        if (!(diff <= worst)) worst = diff;  // NaN propagates as the worst
    }
    return worst / scale;
}

template double relative_error(const std::vector<float>&, const std::vector<double>&);
template double relative_error(const std::vector<double>&, const std::vector<double>&);

}  // namespace shardrun::kernels::reference
