// The 8-float vectors below are passed by value only inside inlined code: no ABI crosses a call.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <algorithm>
#include <cstring>
#include <vector>

#include <omp.h>

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
        SHARDRUN_THROW(InvalidKernelArgument, "sigma", "sigma = " + std::to_string(shape.sigma) + " must be <= " +
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
using Floats8Unaligned = float __attribute__((vector_size(32), aligned(4), may_alias));
constexpr int vectors = 8;  // independent sums: enough to hide the FMA latency

[[gnu::always_inline]] inline void weighted_rows_body(const std::vector<float>& weights, const float* const* rows,
                                                      std::int64_t w, float* dst)
{
    const std::size_t taps = weights.size();
    std::int64_t x0 = 0;
    for (; x0 + 8 * vectors <= w; x0 += 8 * vectors) {
        Floats8 sums[vectors];
        for (int v = 0; v < vectors; ++v) sums[v] = Floats8{};  // in registers, not a zeroed array
        for (std::size_t k = 0; k < taps; ++k) {
            for (int v = 0; v < vectors; ++v) {
                Floats8 pixels;
                std::memcpy(&pixels, rows[k] + x0 + 8 * v, sizeof pixels);
                sums[v] = blur_tap(sums[v], weights[k], pixels);
            }
        }
        for (int v = 0; v < vectors; ++v) *reinterpret_cast<Floats8Unaligned*>(dst + x0 + 8 * v) = sums[v];
    }
    for (std::int64_t x = x0; x < w; ++x) {
        float sum = 0.0f;
        for (std::size_t k = 0; k < taps; ++k) sum = blur_tap(sum, weights[k], rows[k][x]);
        dst[x] = sum;
    }
}

// Two consecutive output rows from the 2·radius+2 rows they span: dst0 weighs rows[0..taps),
// dst1 rows[1..taps]. Each row loaded is used by both sums, so the vertical pass loads about
// half as much per output as two weighted_rows calls, with the same taps in the same order
// (the results are bit-identical to them).
constexpr int pair_vectors = 4;  // 2 x 4 sums + a pixel + two weights fit the 16 vector registers

[[gnu::always_inline]] inline void weighted_row_pair_body(const std::vector<float>& weights, const float* const* rows,
                                                          std::int64_t w, float* dst0, float* dst1)
{
    const std::size_t taps = weights.size();
    std::int64_t x0 = 0;
    for (; x0 + 8 * pair_vectors <= w; x0 += 8 * pair_vectors) {
        Floats8 first[pair_vectors], second[pair_vectors];
        for (int v = 0; v < pair_vectors; ++v) first[v] = second[v] = Floats8{};
        for (std::size_t k = 0; k <= taps; ++k) {
            for (int v = 0; v < pair_vectors; ++v) {
                Floats8 pixels;
                std::memcpy(&pixels, rows[k] + x0 + 8 * v, sizeof pixels);
                if (k < taps) first[v] = blur_tap(first[v], weights[k], pixels);
                if (k > 0) second[v] = blur_tap(second[v], weights[k - 1], pixels);
            }
        }
        for (int v = 0; v < pair_vectors; ++v) {
            *reinterpret_cast<Floats8Unaligned*>(dst0 + x0 + 8 * v) = first[v];
            *reinterpret_cast<Floats8Unaligned*>(dst1 + x0 + 8 * v) = second[v];
        }
    }
    for (std::int64_t x = x0; x < w; ++x) {
        float sum0 = 0.0f, sum1 = 0.0f;
        for (std::size_t k = 0; k < taps; ++k) sum0 = blur_tap(sum0, weights[k], rows[k][x]);
        for (std::size_t k = 0; k < taps; ++k) sum1 = blur_tap(sum1, weights[k], rows[k + 1][x]);
        dst0[x] = sum0;
        dst1[x] = sum1;
    }
}

__attribute__((target("avx2,fma"))) void weighted_row_pair_avx2(const std::vector<float>& weights,
                                                                const float* const* rows, std::int64_t w, float* dst0,
                                                                float* dst1)
{
    weighted_row_pair_body(weights, rows, w, dst0, dst1);
}

void weighted_row_pair_baseline(const std::vector<float>& weights, const float* const* rows, std::int64_t w,
                                float* dst0, float* dst1)
{
    weighted_row_pair_body(weights, rows, w, dst0, dst1);
}

void weighted_row_pair(const std::vector<float>& weights, const float* const* rows, std::int64_t w, float* dst0,
                       float* dst1)
{
    static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    (avx2 ? weighted_row_pair_avx2 : weighted_row_pair_baseline)(weights, rows, w, dst0, dst1);
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

// Both passes fused over the rows one thread takes, in order. The horizontal pass blurs each
// input row once (through a line padded by `radius` clamped pixels on each side) into a ring
// of the last 2·radius+2 rows, which stays in the thread's cache; the vertical pass weighs the
// ring into the output rows, two at a time within an image. Each image row is read once and written once, with no
// intermediate image. Ring rows are padded apart so that they do not share cache sets.
struct Ring {
    std::int64_t stride = 0;
    std::int64_t slots = 0;
    std::vector<float> data;
    float* row(std::int64_t j) { return data.data() + ((j % slots + slots) % slots) * stride; }
};

// ring.row(j) = input row clamp(j) of `plane`, blurred along x.
void horizontal_row(const BlurShape& s, const std::vector<float>& weights, const float* plane, std::int64_t j,
                    std::vector<float>& line, std::vector<const float*>& taps, Ring& ring)
{
    const int radius = static_cast<int>(weights.size() / 2);
    const std::int64_t w = s.width;
    const float* src = plane + clamp_index(j, s.height) * w;
    std::fill(line.begin(), line.begin() + radius, src[0]);  // clamped left border
    std::copy(src, src + w, line.begin() + radius);
    std::fill(line.begin() + radius + w, line.end(), src[w - 1]);  // clamped right border
    for (int k = 0; k <= 2 * radius; ++k) taps[k] = line.data() + k;  // window k starts k pixels in
    weighted_rows(weights, taps.data(), w, ring.row(j));
}

// Output rows [begin, end) of the flattened images × height rows; false when `stop` ended it
// first (a relaxed load a row pair: nothing beside the row's own work).
bool blur_rows(const BlurShape& s, const std::vector<float>& weights, const float* input, float* output,
               std::int64_t begin, std::int64_t end, const StopToken& stop)
{
    const int radius = static_cast<int>(weights.size() / 2);
    const std::int64_t h = s.height, w = s.width;
    std::vector<float> line(w + 2 * radius);
    std::vector<const float*> taps(weights.size() + 1);
    Ring ring{(w + 15) / 16 * 16 + 16, 2 * radius + 2, {}};
    ring.data.resize(ring.stride * ring.slots);
    std::int64_t filled = 0;  // the ring holds this image's blurred rows up to `filled`
    for (std::int64_t row = begin; row < end;) {
        if (stop.stop_requested()) return false;
        const std::int64_t image = row / h, y = row % h;
        const float* plane = input + image * h * w;
        const std::int64_t count = (row + 1 < end && y + 1 < h) ? 2 : 1;
        if (row == begin || y == 0) filled = y - radius - 1;
        for (std::int64_t j = filled + 1; j <= y + count - 1 + radius; ++j) {
            horizontal_row(s, weights, plane, j, line, taps, ring);
        }
        filled = y + count - 1 + radius;
        for (int k = 0; k < 2 * radius + static_cast<int>(count); ++k) taps[k] = ring.row(y + k - radius);
        if (count == 2) {
            weighted_row_pair(weights, taps.data(), w, output + row * w, output + (row + 1) * w);
        } else {
            weighted_rows(weights, taps.data(), w, output + row * w);
        }
        row += count;
    }
    return true;
}

}  // namespace

void blur(const Device& device, const BlurShape& shape, const float* input, float* output)
{
    validate_blur(shape);
    const auto weights = blur_weights(shape.sigma);
    const std::int64_t rows = shape.images * shape.height;
    bool finished = true;
#pragma omp parallel reduction(&& : finished)
    {
        const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        finished = blur_rows(shape, weights, input, output, rows * t / threads, rows * (t + 1) / threads, device.stop);
    }
    // Exceptions may not leave the parallel region: the threads stop, then the call throws.
    if (!finished) SHARDRUN_THROW(Stopped, "blur: stopped before it finished");
}

}  // namespace cpu
}  // namespace shardrun::kernels
