#include <vector>

#include "kernels/common/cuda_check.cuh"
#include "kernels/mlp/mlp.hpp"
#include "kernels/mlp/mlp_element.hpp"

namespace shardrun::kernels::mlp::cuda {
namespace {

using kernels::cuda::rank_cublas;
using kernels::cuda::rank_stream;

constexpr int threads = 256;

int blocks_for(std::size_t n) { return static_cast<int>((n + threads - 1) / threads); }

__global__ void add_bias_kernel(int rows, int cols, const float* bias, bool relu, float* x)
{
    const auto i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= static_cast<std::size_t>(rows) * cols) return;
    const float value = x[i] + bias[i % cols];
    x[i] = relu ? mlp::relu(value) : value;
}

__global__ void relu_backward_kernel(std::size_t n, const float* activation, float* grad)
{
    const auto i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) grad[i] = mlp::relu_backward(activation[i], grad[i]);
}

// One thread per column: rows are summed in the same order as the CPU half.
__global__ void column_sums_kernel(int rows, int cols, const float* x, float* out)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r) sum += x[static_cast<std::size_t>(r) * cols + c];
    out[c] = sum;
}

// One thread per row; loss and hit of each row are summed on the host.
__global__ void softmax_kernel(int rows, int classes, const float* logits, const std::int32_t* labels, float scale,
                               float* grad, float* row_loss, int* row_hit)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const auto offset = static_cast<std::size_t>(r) * classes;
    int predicted = 0;
    row_loss[r] = softmax_cross_entropy_row(logits + offset, classes, labels[r], scale, grad + offset, predicted);
    row_hit[r] = predicted == labels[r] ? 1 : 0;
}

__global__ void sgd_kernel(std::size_t n, float lr, float momentum, const float* grad, float* velocity, float* weight)
{
    const auto i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) sgd_momentum_step(weight[i], velocity[i], grad[i], lr, momentum);
}

__global__ void adam_kernel(std::size_t n, float lr, float beta1, float beta2, float eps, int step, const float* grad,
                            float* m, float* v, float* weight)
{
    const auto i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) adam_step(weight[i], m[i], v[i], grad[i], lr, beta1, beta2, eps, step);
}

}  // namespace

void matmul(const Device& device, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
            const float* b, float beta, float* c)
{
    // cuBLAS is column-major: row-major C = op(A) op(B) is column-major Cᵀ = op(B)ᵀ op(A)ᵀ.
    SHARDRUN_CUBLAS_CHECK(cublasSgemm(rank_cublas(device.ordinal), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                      trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, trans_b ? k : n, a,
                                      trans_a ? m : k, &beta, c, n));
}

void add_bias(const Device& device, int rows, int cols, const float* bias, bool relu, float* x)
{
    const auto n = static_cast<std::size_t>(rows) * cols;
    add_bias_kernel<<<blocks_for(n), threads, 0, rank_stream(device.ordinal)>>>(rows, cols, bias, relu, x);
    SHARDRUN_CUDA_CHECK_LAUNCH();
}

void relu_backward(const Device& device, std::size_t n, const float* activation, float* grad)
{
    relu_backward_kernel<<<blocks_for(n), threads, 0, rank_stream(device.ordinal)>>>(n, activation, grad);
    SHARDRUN_CUDA_CHECK_LAUNCH();
}

void column_sums(const Device& device, int rows, int cols, const float* x, float* out)
{
    column_sums_kernel<<<blocks_for(static_cast<std::size_t>(cols)), threads, 0, rank_stream(device.ordinal)>>>(
        rows, cols, x, out);
    SHARDRUN_CUDA_CHECK_LAUNCH();
}

BatchScore softmax_cross_entropy(const Device& device, int rows, int classes, const float* logits,
                                 const std::int32_t* labels, float scale, float* grad)
{
    const auto stream = rank_stream(device.ordinal);
    kernels::cuda::DeviceBuffer<float> loss(static_cast<std::size_t>(rows));
    kernels::cuda::DeviceBuffer<int> hit(static_cast<std::size_t>(rows));
    softmax_kernel<<<blocks_for(static_cast<std::size_t>(rows)), threads, 0, stream>>>(
        rows, classes, logits, labels, scale, grad, loss.get(), hit.get());
    SHARDRUN_CUDA_CHECK_LAUNCH();
    std::vector<float> host_loss(static_cast<std::size_t>(rows));
    std::vector<int> host_hit(static_cast<std::size_t>(rows));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(host_loss.data(), loss.get(), loss.bytes(), cudaMemcpyDeviceToHost, stream));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(host_hit.data(), hit.get(), hit.bytes(), cudaMemcpyDeviceToHost, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
    BatchScore score;
    for (int r = 0; r < rows; ++r) {
        score.loss_sum += host_loss[static_cast<std::size_t>(r)];
        score.correct += host_hit[static_cast<std::size_t>(r)];
    }
    return score;
}

BatchScore score(const Device& device, int rows, int classes, const float* logits, const std::int32_t* labels)
{
    kernels::cuda::DeviceBuffer<float> scratch(static_cast<std::size_t>(rows) * classes);
    return softmax_cross_entropy(device, rows, classes, logits, labels, 0.0f, scratch.get());
}

void sgd_momentum(const Device& device, std::size_t n, float lr, float momentum, const float* grad, float* velocity,
                  float* weight)
{
    sgd_kernel<<<blocks_for(n), threads, 0, rank_stream(device.ordinal)>>>(n, lr, momentum, grad, velocity, weight);
    SHARDRUN_CUDA_CHECK_LAUNCH();
}

void adam(const Device& device, std::size_t n, float lr, float beta1, float beta2, float eps, int step,
          const float* grad, float* m, float* v, float* weight)
{
    adam_kernel<<<blocks_for(n), threads, 0, rank_stream(device.ordinal)>>>(n, lr, beta1, beta2, eps, step, grad, m, v,
                                                                            weight);
    SHARDRUN_CUDA_CHECK_LAUNCH();
}

}  // namespace shardrun::kernels::mlp::cuda
