#include "runner/tasks/train/synthetic_data.hpp"

#include <cmath>
#include <numbers>

namespace shardrun::tasks::train {
namespace {

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace

double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index)
{
    const auto key = splitmix64(seed ^ (stream * 0xD1B54A32D192ED03ull));
    return static_cast<double>(splitmix64(key + index) >> 11) * 0x1.0p-53;
}

Dataset gaussian_blobs(std::uint64_t seed, int rows, int features, int classes, float noise, std::uint64_t noise_stream)
{
    std::vector<double> centers(static_cast<std::size_t>(classes) * features);
    for (std::size_t i = 0; i < centers.size(); ++i) centers[i] = 2.0 * uniform01(seed, 1, i) - 1.0;
    Dataset data;
    data.features = features;
    data.x.resize(static_cast<std::size_t>(rows) * features);
    data.y.resize(static_cast<std::size_t>(rows));
    for (int n = 0; n < rows; ++n) {
        const int label = n % classes;
        data.y[static_cast<std::size_t>(n)] = label;
        for (int i = 0; i < features; ++i) {
            const auto m = static_cast<std::uint64_t>(n) * features + i;
            // 1 - u keeps the logarithm finite.
            const double u1 = 1.0 - uniform01(seed, noise_stream, 2 * m), u2 = uniform01(seed, noise_stream, 2 * m + 1);
            const double gaussian = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
            data.x[m] = static_cast<float>(centers[static_cast<std::size_t>(label) * features + i] + noise * gaussian);
        }
    }
    return data;
}

std::vector<float> glorot_uniform(std::uint64_t seed, int layer, int fan_in, int fan_out)
{
    const double limit = std::sqrt(6.0 / (fan_in + fan_out));
    std::vector<float> weights(static_cast<std::size_t>(fan_in) * fan_out);
    for (std::size_t i = 0; i < weights.size(); ++i) {
        weights[i] = static_cast<float>((2.0 * uniform01(seed, 10 + static_cast<std::uint64_t>(layer), i) - 1.0) * limit);
    }
    return weights;
}

}  // namespace shardrun::tasks::train
