#pragma once

#include <cstdint>
#include <vector>

namespace shardrun::tasks::train {

/**
 * The train kind's only source of randomness: a uniform double in [0, 1) from (seed, stream,
 * index) through splitmix64, so any element can be computed alone and a NumPy reference
 * (tests/cli/train_reference.py) reproduces data and initial weights exactly:
 *   key = splitmix64(seed ^ (stream * 0xD1B54A32D192ED03)); u = (splitmix64(key + index) >> 11) * 2^-53
 */
double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

/** Rows of features and their class labels. */
struct Dataset {
    int features = 0;
    std::vector<float> x;            ///< [rows x features], row-major
    std::vector<std::int32_t> y;     ///< [rows]
    int rows() const { return static_cast<int>(y.size()); }
};

/**
 * Gaussian blobs: `classes` centers uniform in [-1, 1)^features (stream 1); row n has label
 * n % classes and features center + noise * N(0, 1) (Box-Muller, cos branch, from stream
 * `noise_stream` indices 2m and 2m+1 for element m = n * features + i).
 */
Dataset gaussian_blobs(std::uint64_t seed, int rows, int features, int classes, float noise, std::uint64_t noise_stream);

/** Glorot-uniform weights [fan_in x fan_out] from stream 10 + layer. */
std::vector<float> glorot_uniform(std::uint64_t seed, int layer, int fan_in, int fan_out);

}  // namespace shardrun::tasks::train
