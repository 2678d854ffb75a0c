#include <algorithm>
#include <cstring>

#include "kernels/common/checks.hpp"
#include "kernels/common/cuda_check.cuh"
#include "kernels/embed/embed.hpp"
#include "kernels/embed/embed_element.hpp"

namespace shardrun::kernels::cuda {
namespace {

constexpr int threads = 256;

// One block per row: e = act(e), then e = e / |e|.
__global__ void activate_and_normalise(long long rows, int n, Activation activation, float* embeddings)
{
    __shared__ float partial[threads];
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        float* e = embeddings + row * n;
        float sum_squares = 0.0f;
        for (int j = threadIdx.x; j < n; j += threads) {
            e[j] = activate(activation, e[j]);
            sum_squares += e[j] * e[j];
        }
        partial[threadIdx.x] = sum_squares;
        __syncthreads();
        for (int half = threads / 2; half > 0; half /= 2) {
            if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
            __syncthreads();
        }
        const float scale = unit_scale(partial[0]);
        for (int j = threadIdx.x; j < n; j += threads) e[j] *= scale;
        __syncthreads();
    }
}

}  // namespace

void embed(const Device& device, const EmbedShape& shape, const float* inputs, const float* weights, float* embeddings)
{
    validate_embed(shape);
    const std::size_t nx = shape.rows * shape.input_dim, nw = shape.input_dim * shape.output_dim;
    const std::size_t ne = shape.rows * shape.output_dim;
    const cudaStream_t stream = rank_stream(device.ordinal);
    const cublasHandle_t handle = rank_cublas(device.ordinal);
    require_device_memory((nx + nw + ne) * sizeof(float), "embed");
    DeviceBuffer<float> dx(nx), dw(nw), de(ne);
    PinnedBuffer<float> staging(std::max({nx, nw, ne}));
    std::memcpy(staging.get(), inputs, nx * sizeof(float));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(dx.get(), staging.get(), dx.bytes(), cudaMemcpyHostToDevice, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(staging.get(), weights, nw * sizeof(float));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(dw.get(), staging.get(), dw.bytes(), cudaMemcpyHostToDevice, stream));
    const float one = 1.0f, zero = 0.0f;
    const int m = static_cast<int>(shape.rows), k = static_cast<int>(shape.input_dim);
    const int n = static_cast<int>(shape.output_dim);
    // row-major E = X·W as column-major E^T = W^T·X^T
    SHARDRUN_CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, dw.get(), n, dx.get(), k, &zero,
                                      de.get(), n));
    const int blocks = static_cast<int>(std::min<long long>(shape.rows, 65535));
    activate_and_normalise<<<blocks, threads, 0, stream>>>(shape.rows, n, shape.activation, de.get());
    SHARDRUN_CUDA_CHECK_LAUNCH();
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(staging.get(), de.get(), de.bytes(), cudaMemcpyDeviceToHost, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(embeddings, staging.get(), ne * sizeof(float));
}

}  // namespace shardrun::kernels::cuda
