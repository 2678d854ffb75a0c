#include <algorithm>
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

// in[row] -> out[row] along x, through a line padded by `radius` clamped pixels on each side.
void horizontal_pass(const BlurShape& s, const std::vector<float>& weights, const float* in, float* out)
{
    const int radius = static_cast<int>(weights.size() / 2), taps = static_cast<int>(weights.size());
    const std::int64_t rows = s.images * s.height, w = s.width;
#pragma omp parallel
    {
        std::vector<float> line(w + 2 * radius);
#pragma omp for schedule(static)
        for (std::int64_t row = 0; row < rows; ++row) {
            const float* src = in + row * w;
            for (std::int64_t i = 0; i < w + 2 * radius; ++i) line[i] = src[clamp_index(i - radius, w)];
            float* dst = out + row * w;
#pragma omp simd
            for (std::int64_t x = 0; x < w; ++x) dst[x] = blur_point(line.data() + x, 1, weights.data(), taps);
        }
    }
}

// in -> out along y; rows within radius of an edge clamp, the others read a plain window.
void vertical_pass(const BlurShape& s, const std::vector<float>& weights, const float* in, float* out)
{
    const int radius = static_cast<int>(weights.size() / 2), taps = static_cast<int>(weights.size());
    const std::int64_t h = s.height, w = s.width;
#pragma omp parallel for schedule(static) collapse(2)
    for (std::int64_t image = 0; image < s.images; ++image) {
        for (std::int64_t y = 0; y < h; ++y) {
            const float* plane = in + image * h * w;
            float* dst = out + (image * h + y) * w;
            if (y - radius >= 0 && y + radius < h) {
                const float* window = plane + (y - radius) * w;
#pragma omp simd
                for (std::int64_t x = 0; x < w; ++x) dst[x] = blur_point(window + x, w, weights.data(), taps);
            } else {
                for (std::int64_t x = 0; x < w; ++x) dst[x] = blur_point_clamped(plane + x, w, h, y, weights.data(), radius);
            }
        }
    }
}

}  // namespace

void blur(const Device&, const BlurShape& shape, const float* input, float* output)
{
    validate_blur(shape);
    const auto weights = blur_weights(shape.sigma);
    std::vector<float> across(static_cast<std::size_t>(shape.images * shape.height * shape.width));
    horizontal_pass(shape, weights, input, across.data());  // along x
    vertical_pass(shape, weights, across.data(), output);   // then along y
}

}  // namespace cpu
}  // namespace shardrun::kernels
