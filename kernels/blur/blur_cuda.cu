#include <algorithm>
#include <cstring>

#include "kernels/blur/blur.hpp"
#include "kernels/blur/blur_element.hpp"
#include "kernels/common/checks.hpp"
#include "kernels/common/cuda_check.cuh"

namespace shardrun::kernels::cuda {
namespace {

constexpr int row_threads = 256;
constexpr int tile_width = 32;
constexpr int tile_height = 8;

// One block blurs a segment of row_threads pixels of a row; the segment and its clamped
// halo sit in shared memory.
__global__ void blur_rows(long long rows, long long w, int radius, const float* weights, const float* in, float* out)
{
    extern __shared__ float segment[];
    const long long x0 = static_cast<long long>(blockIdx.x) * row_threads;
    for (long long row = blockIdx.y; row < rows; row += gridDim.y) {
        const float* src = in + row * w;
        for (int i = threadIdx.x; i < row_threads + 2 * radius; i += row_threads) {
            segment[i] = src[clamp_index(x0 + i - radius, w)];
        }
        __syncthreads();
        const long long x = x0 + threadIdx.x;
        if (x < w) out[row * w + x] = blur_point(segment + threadIdx.x, 1, weights, 2 * radius + 1);
        __syncthreads();
    }
}

// One block blurs a tile_width × tile_height tile along y from a tile with a clamped halo of rows.
__global__ void blur_columns(long long images, long long h, long long w, int radius, const float* weights,
                             const float* in, float* out)
{
    extern __shared__ float tile[];
    const long long x = static_cast<long long>(blockIdx.x) * tile_width + threadIdx.x;
    const long long y0 = static_cast<long long>(blockIdx.y) * tile_height;
    const int tile_rows = tile_height + 2 * radius;
    for (long long image = blockIdx.z; image < images; image += gridDim.z) {
        const float* plane = in + image * h * w;
        for (int r = threadIdx.y; r < tile_rows; r += tile_height) {
            tile[r * tile_width + threadIdx.x] = x < w ? plane[clamp_index(y0 + r - radius, h) * w + x] : 0.0f;
        }
        __syncthreads();
        const long long y = y0 + threadIdx.y;
        const float* window = tile + threadIdx.y * tile_width + threadIdx.x;
        if (x < w && y < h) out[(image * h + y) * w + x] = blur_point(window, tile_width, weights, 2 * radius + 1);
        __syncthreads();
    }
}

}  // namespace

void blur(const Device& device, const BlurShape& shape, const float* input, float* output)
{
    validate_blur(shape);
    const auto weights = blur_weights(shape.sigma);
    const int radius = static_cast<int>(weights.size() / 2);
    const std::size_t count = static_cast<std::size_t>(shape.images * shape.height * shape.width);
    const cudaStream_t stream = rank_stream(device.ordinal);
    require_device_memory(3 * count * sizeof(float) + weights.size() * sizeof(float), "blur");
    DeviceBuffer<float> d_in(count), d_across(count), d_out(count), d_weights(weights.size());
    PinnedBuffer<float> staging(count);
    std::memcpy(staging.get(), input, count * sizeof(float));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(d_in.get(), staging.get(), d_in.bytes(), cudaMemcpyHostToDevice, stream));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(d_weights.get(), weights.data(), d_weights.bytes(), cudaMemcpyHostToDevice, stream));
    const long long rows = shape.images * shape.height;
    const dim3 row_grid(static_cast<unsigned>((shape.width + row_threads - 1) / row_threads),
                        static_cast<unsigned>(std::min<long long>(rows, 65535)));
    blur_rows<<<row_grid, row_threads, (row_threads + 2 * radius) * sizeof(float), stream>>>(
        rows, shape.width, radius, d_weights.get(), d_in.get(), d_across.get());
    SHARDRUN_CUDA_CHECK_LAUNCH();
    const dim3 tile_grid(static_cast<unsigned>((shape.width + tile_width - 1) / tile_width),
                         static_cast<unsigned>((shape.height + tile_height - 1) / tile_height),
                         static_cast<unsigned>(std::min<long long>(shape.images, 65535)));
    const std::size_t tile_bytes = (tile_height + 2 * radius) * tile_width * sizeof(float);
    blur_columns<<<tile_grid, dim3(tile_width, tile_height), tile_bytes, stream>>>(
        shape.images, shape.height, shape.width, radius, d_weights.get(), d_across.get(), d_out.get());
    SHARDRUN_CUDA_CHECK_LAUNCH();
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(staging.get(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(output, staging.get(), count * sizeof(float));
}

}  // namespace shardrun::kernels::cuda
