// blur's float64 reference and its `shardrun selftest` case.
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/blur/blur_element.hpp"
#include "kernels/selftest/selftest_case_support.hpp"

namespace shardrun::kernels {
namespace {

SelftestRow blur_float32(const Device& device)
{
    using namespace selftest_support;
    const BlurShape shape{3, 40, 37, 1.7};
    const auto images = random_values<float>(shape.images * shape.height * shape.width, 21, 0.0f, 1.0f);
    std::vector<float> out(images.size());
    blur(device, shape, images.data(), out.data());
    const double error = reference::relative_error(out, reference::blur(shape, images.data()));
    return {"blur", device.label(), "float32", size_text(shape.images, shape.height, shape.width), error, 1e-5};
}

}  // namespace

std::vector<double> reference::blur(const BlurShape& s, const float* input)
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

std::vector<SelftestCase> blur_selftest_cases() { return {{"blur", "float32", blur_float32}}; }

}  // namespace shardrun::kernels
