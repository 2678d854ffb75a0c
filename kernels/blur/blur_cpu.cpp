// The 8-float vectors below are passed by value only inside inlined code: no ABI crosses a call.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/blur/blur_element.hpp"
#include "kernels/common/checks.hpp"
#include "kernels/common/errors.hpp"

namespace shardrun::kernels {

void validate_blur(const BlurShape& shape)
{
    require_positive("images", shape.images);
    require_positive("height", shape.height);
    require_positive("width", shape.width);
    require_finite("sigma", shape.sigma, true);
    if (shape.sigma > blur_max_sigma) {
        throw InvalidKernelArgument("sigma", "sigma = " + std::to_string(shape.sigma) + " must be <= " +
                                                 std::to_string(blur_max_sigma));
    }
    // input, output and the intermediate pass
    require_host_memory(3 * buffer_bytes({shape.images, shape.height, shape.width}, sizeof(float)), "blur");
}

std::vector<float> blur_weights(double sigma)
{
    const int radius = blur_radius(sigma);
    std::vector<double> taps(2 * radius + 1);
    double total = 0.0;
    for (int k = -radius; k <= radius; ++k) total += taps[k + radius] = gaussian_tap(k, sigma);
    std::vector<float> weights(taps.size());
    for (std::size_t i = 0; i < taps.size(); ++i) weights[i] = static_cast<float>(taps[i] / total);
    return weights;
}

namespace cpu {
namespace {

// dst[x] = Σ_k weights[k]·rows[k][x], taps added in order. Blocks of 64 pixels keep their
// sums in eight 8-float vector registers, so a tap costs a load and a multiply-add per 8
// pixels. Compiled twice: AVX2+FMA, chosen at run time where the CPU has it, and baseline.
using Floats8 = float __attribute__((vector_size(32)));
constexpr int vectors = 8;  // independent sums: enough to hide the FMA latency

[[gnu::always_inline]] inline void weighted_rows_body(const std::vector<float>& weights, const float* const* rows,
                                                      std::int64_t w, float* dst)
{
    const std::size_t taps = weights.size();
    std::int64_t x0 = 0;
    for (; x0 + 8 * vectors <= w; x0 += 8 * vectors) {
        Floats8 sums[vectors] = {};
        for (std::size_t k = 0; k < taps; ++k) {
            for (int v = 0; v < vectors; ++v) {
                Floats8 pixels;
                std::memcpy(&pixels, rows[k] + x0 + 8 * v, sizeof pixels);
                sums[v] = blur_tap(sums[v], weights[k], pixels);
            }
        }
        std::memcpy(dst + x0, sums, sizeof sums);
    }
    for (std::int64_t x = x0; x < w; ++x) {
        float sum = 0.0f;
        for (std::size_t k = 0; k < taps; ++k) sum = blur_tap(sum, weights[k], rows[k][x]);
        dst[x] = sum;
    }
}

__attribute__((target("avx2,fma"))) void weighted_rows_avx2(const std::vector<float>& weights,
                                                            const float* const* rows, std::int64_t w, float* dst)
{
    weighted_rows_body(weights, rows, w, dst);
}

void weighted_rows_baseline(const std::vector<float>& weights, const float* const* rows, std::int64_t w, float* dst)
{
    weighted_rows_body(weights, rows, w, dst);
}

void weighted_rows(const std::vector<float>& weights, const float* const* rows, std::int64_t w, float* dst)
{
    static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    (avx2 ? weighted_rows_avx2 : weighted_rows_baseline)(weights, rows, w, dst);
}

// in[row] -> out[row] along x, through a line padded by `radius` clamped pixels on each side.
void horizontal_pass(const BlurShape& s, const std::vector<float>& weights, const float* in, float* out)
{
    const int radius = static_cast<int>(weights.size() / 2);
    const std::int64_t rows = s.images * s.height, w = s.width;
#pragma omp parallel
    {
        std::vector<float> line(w + 2 * radius);
        std::vector<const float*> taps(weights.size());
        for (std::size_t k = 0; k < taps.size(); ++k) taps[k] = line.data() + k;  // window k starts k pixels in
#pragma omp for schedule(static)
        for (std::int64_t row = 0; row < rows; ++row) {
            const float* src = in + row * w;
            std::fill(line.begin(), line.begin() + radius, src[0]);  // clamped left border
            std::copy(src, src + w, line.begin() + radius);
            std::fill(line.begin() + radius + w, line.end(), src[w - 1]);  // clamped right border
            weighted_rows(weights, taps.data(), w, out + row * w);
        }
    }
}

// in -> out along y: output row y weighs input rows clamp(y + k − radius).
void vertical_pass(const BlurShape& s, const std::vector<float>& weights, const float* in, float* out)
{
    const int radius = static_cast<int>(weights.size() / 2);
    const std::int64_t h = s.height, w = s.width;
#pragma omp parallel
    {
        std::vector<const float*> taps(weights.size());
#pragma omp for schedule(static) collapse(2)
        for (std::int64_t image = 0; image < s.images; ++image) {
            for (std::int64_t y = 0; y < h; ++y) {
                const float* plane = in + image * h * w;
                for (int k = 0; k <= 2 * radius; ++k) taps[k] = plane + clamp_index(y + k - radius, h) * w;
                weighted_rows(weights, taps.data(), w, out + (image * h + y) * w);
            }
        }
    }
}

}  // namespace

void blur(const Device&, const BlurShape& shape, const float* input, float* output)
{
    validate_blur(shape);
    const auto weights = blur_weights(shape.sigma);
    // Reused across calls: a fresh large buffer would cost page faults on every call.
    thread_local std::vector<float> across;
    across.resize(static_cast<std::size_t>(shape.images * shape.height * shape.width));
    horizontal_pass(shape, weights, input, across.data());  // along x
    vertical_pass(shape, weights, across.data(), output);   // then along y
}

}  // namespace cpu
}  // namespace shardrun::kernels
