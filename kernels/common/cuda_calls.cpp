// The binary's side of every CUDA entry point of kernels/: each forwards to the backend library,
// loading it on the first call, so a process that never asks for a GPU never maps CUDA.
#include "kernels/common/cuda_backend.hpp"

namespace shardrun::kernels::cuda {

void* device_allocate(int ordinal, std::size_t bytes)
{
    return kernel_table("device buffer").device_allocate(ordinal, bytes);
}

void device_free(int ordinal, void* data) noexcept
{
    // A CUDA buffer exists only once the backend is loaded.
    if (backend_loaded()) kernel_table("device buffer").device_free(ordinal, data);
}

void copy_host_to_device(int ordinal, void* device, const void* host, std::size_t bytes)
{
    kernel_table("device buffer").copy_host_to_device(ordinal, device, host, bytes);
}

void copy_device_to_host(int ordinal, void* host, const void* device, std::size_t bytes)
{
    kernel_table("device buffer").copy_device_to_host(ordinal, host, device, bytes);
}

GemmTiming gemm(const Device& device, const GemmShape& shape, const float* a, const float* b, float* c, int repeats)
{
    return kernel_table("gemm").gemm_float(device, shape, a, b, c, repeats);
}

GemmTiming gemm(const Device& device, const GemmShape& shape, const double* a, const double* b, double* c,
                int repeats)
{
    return kernel_table("gemm").gemm_double(device, shape, a, b, c, repeats);
}

// One forwarder per line of cuda_kernel_list.hpp.
#define SHARDRUN_KERNEL_FORWARDER(name, label, declare, arguments) \
    declare { return kernel_table(label).name arguments; }
SHARDRUN_CUDA_KERNELS(SHARDRUN_KERNEL_FORWARDER)
#undef SHARDRUN_KERNEL_FORWARDER

}  // namespace shardrun::kernels::cuda

namespace shardrun::kernels::mlp::cuda {
namespace {

const kernels::cuda::KernelTable& table() { return kernels::cuda::kernel_table("train"); }

}  // namespace

void matmul(const Device& device, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
            const float* b, float beta, float* c)
{
    table().mlp_matmul(device, trans_a, trans_b, m, n, k, alpha, a, b, beta, c);
}

void add_bias(const Device& device, int rows, int cols, const float* bias, bool relu, float* x)
{
    table().mlp_add_bias(device, rows, cols, bias, relu, x);
}

void relu_backward(const Device& device, std::size_t n, const float* activation, float* grad)
{
    table().mlp_relu_backward(device, n, activation, grad);
}

void column_sums(const Device& device, int rows, int cols, const float* x, float* out)
{
    table().mlp_column_sums(device, rows, cols, x, out);
}

BatchScore softmax_cross_entropy(const Device& device, int rows, int classes, const float* logits,
                                 const std::int32_t* labels, float scale, float* grad)
{
    return table().mlp_softmax_cross_entropy(device, rows, classes, logits, labels, scale, grad);
}

BatchScore score(const Device& device, int rows, int classes, const float* logits, const std::int32_t* labels)
{
    return table().mlp_score(device, rows, classes, logits, labels);
}

void sgd_momentum(const Device& device, std::size_t n, float lr, float momentum, const float* grad, float* velocity,
                  float* weight)
{
    table().mlp_sgd_momentum(device, n, lr, momentum, grad, velocity, weight);
}

void adam(const Device& device, std::size_t n, float lr, float beta1, float beta2, float eps, int step,
          const float* grad, float* m, float* v, float* weight)
{
    table().mlp_adam(device, n, lr, beta1, beta2, eps, step, grad, m, v, weight);
}

}  // namespace shardrun::kernels::mlp::cuda
