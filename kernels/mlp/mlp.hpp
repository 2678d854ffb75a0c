#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/device.hpp"

namespace shardrun::kernels::mlp {

/** Loss and hits of a batch of rows. */
struct BatchScore {
    double loss_sum = 0;  ///< summed per-row cross-entropy
    std::int64_t correct = 0;
};

// The layer operations of a data-parallel MLP on row-major float matrices, in the memory of
// `device` (host pointers on the CPU, device pointers on CUDA, where they run in order on
// the rank's stream). GEMMs go through OpenBLAS or cuBLAS; the element-wise work shares
// mlp_element.hpp between the two halves.
/** C[m x n] = alpha * op(A) * op(B) + beta * C, op = transpose when asked. */
#define SHARDRUN_DECLARE_MLP_MATMUL                                                                                 \
    void matmul(const Device& device, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, \
                const float* b, float beta, float* c)
/** x[r][c] = act(x[r][c] + bias[c]), act = relu or identity. */
#define SHARDRUN_DECLARE_MLP_ADD_BIAS \
    void add_bias(const Device& device, int rows, int cols, const float* bias, bool relu, float* x)
/** grad = relu_backward(activation, grad), elementwise. */
#define SHARDRUN_DECLARE_MLP_RELU_BACKWARD \
    void relu_backward(const Device& device, std::size_t n, const float* activation, float* grad)
/** out[c] = sum over rows of x[r][c] (a bias gradient). */
#define SHARDRUN_DECLARE_MLP_COLUMN_SUMS \
    void column_sums(const Device& device, int rows, int cols, const float* x, float* out)
/** Softmax cross-entropy of each row; grad = (softmax - onehot) * scale. Waits for the result. */
#define SHARDRUN_DECLARE_MLP_SOFTMAX_CROSS_ENTROPY                                                 \
    BatchScore softmax_cross_entropy(const Device& device, int rows, int classes, const float* logits, \
                                     const std::int32_t* labels, float scale, float* grad)
/** Loss and hits only (validation). Waits for the result. */
#define SHARDRUN_DECLARE_MLP_SCORE \
    BatchScore score(const Device& device, int rows, int classes, const float* logits, const std::int32_t* labels)
#define SHARDRUN_DECLARE_MLP_SGD_MOMENTUM                                                               \
    void sgd_momentum(const Device& device, std::size_t n, float lr, float momentum, const float* grad, \
                      float* velocity, float* weight)
#define SHARDRUN_DECLARE_MLP_ADAM                                                                            \
    void adam(const Device& device, std::size_t n, float lr, float beta1, float beta2, float eps, int step, \
              const float* grad, float* m, float* v, float* weight)
#define SHARDRUN_DECLARE_MLP_OPS                                                                               \
    SHARDRUN_DECLARE_MLP_MATMUL;                                                                               \
    SHARDRUN_DECLARE_MLP_ADD_BIAS;                                                                             \
    SHARDRUN_DECLARE_MLP_RELU_BACKWARD;                                                                        \
    SHARDRUN_DECLARE_MLP_COLUMN_SUMS;                                                                          \
    SHARDRUN_DECLARE_MLP_SOFTMAX_CROSS_ENTROPY;                                                                \
    SHARDRUN_DECLARE_MLP_SCORE;                                                                                \
    SHARDRUN_DECLARE_MLP_SGD_MOMENTUM;                                                                         \
    SHARDRUN_DECLARE_MLP_ADAM

namespace cpu {
SHARDRUN_DECLARE_MLP_OPS;
}  // namespace cpu

namespace cuda {
SHARDRUN_DECLARE_MLP_OPS;
}  // namespace cuda

/** The CUDA backend's entries for the training step (kernels/common/cuda_kernel_list.hpp.in says how). */
#define SHARDRUN_MLP_CUDA_TABLE(X)                                                                                   \
    X(mlp::cuda, mlp_matmul, matmul, "train", SHARDRUN_DECLARE_MLP_MATMUL,                                           \
      (device, trans_a, trans_b, m, n, k, alpha, a, b, beta, c))                                                     \
    X(mlp::cuda, mlp_add_bias, add_bias, "train", SHARDRUN_DECLARE_MLP_ADD_BIAS, (device, rows, cols, bias, relu, x)) \
    X(mlp::cuda, mlp_relu_backward, relu_backward, "train", SHARDRUN_DECLARE_MLP_RELU_BACKWARD,                      \
      (device, n, activation, grad))                                                                                 \
    X(mlp::cuda, mlp_column_sums, column_sums, "train", SHARDRUN_DECLARE_MLP_COLUMN_SUMS, (device, rows, cols, x, out)) \
    X(mlp::cuda, mlp_softmax_cross_entropy, softmax_cross_entropy, "train", SHARDRUN_DECLARE_MLP_SOFTMAX_CROSS_ENTROPY, \
      (device, rows, classes, logits, labels, scale, grad))                                                          \
    X(mlp::cuda, mlp_score, score, "train", SHARDRUN_DECLARE_MLP_SCORE, (device, rows, classes, logits, labels))     \
    X(mlp::cuda, mlp_sgd_momentum, sgd_momentum, "train", SHARDRUN_DECLARE_MLP_SGD_MOMENTUM,                         \
      (device, n, lr, momentum, grad, velocity, weight))                                                             \
    X(mlp::cuda, mlp_adam, adam, "train", SHARDRUN_DECLARE_MLP_ADAM,                                                 \
      (device, n, lr, beta1, beta2, eps, step, grad, m, v, weight))

/** The dispatching forms: the device's backend runs the call. */
struct Ops {
    Device device;

    void matmul(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, const float* b, float beta,
                float* c) const
    {
        device.kind == DeviceKind::cuda ? cuda::matmul(device, ta, tb, m, n, k, alpha, a, b, beta, c)
                                        : cpu::matmul(device, ta, tb, m, n, k, alpha, a, b, beta, c);
    }
    void add_bias(int rows, int cols, const float* bias, bool relu, float* x) const
    {
        device.kind == DeviceKind::cuda ? cuda::add_bias(device, rows, cols, bias, relu, x)
                                        : cpu::add_bias(device, rows, cols, bias, relu, x);
    }
    void relu_backward(std::size_t n, const float* activation, float* grad) const
    {
        device.kind == DeviceKind::cuda ? cuda::relu_backward(device, n, activation, grad)
                                        : cpu::relu_backward(device, n, activation, grad);
    }
    void column_sums(int rows, int cols, const float* x, float* out) const
    {
        device.kind == DeviceKind::cuda ? cuda::column_sums(device, rows, cols, x, out)
                                        : cpu::column_sums(device, rows, cols, x, out);
    }
    BatchScore softmax_cross_entropy(int rows, int classes, const float* logits, const std::int32_t* labels,
                                     float scale, float* grad) const
    {
        return device.kind == DeviceKind::cuda
                   ? cuda::softmax_cross_entropy(device, rows, classes, logits, labels, scale, grad)
                   : cpu::softmax_cross_entropy(device, rows, classes, logits, labels, scale, grad);
    }
    BatchScore score(int rows, int classes, const float* logits, const std::int32_t* labels) const
    {
        return device.kind == DeviceKind::cuda ? cuda::score(device, rows, classes, logits, labels)
                                               : cpu::score(device, rows, classes, logits, labels);
    }
    void sgd_momentum(std::size_t n, float lr, float momentum, const float* grad, float* velocity, float* weight) const
    {
        device.kind == DeviceKind::cuda ? cuda::sgd_momentum(device, n, lr, momentum, grad, velocity, weight)
                                        : cpu::sgd_momentum(device, n, lr, momentum, grad, velocity, weight);
    }
    void adam(std::size_t n, float lr, float beta1, float beta2, float eps, int step, const float* grad, float* m,
              float* v, float* weight) const
    {
        device.kind == DeviceKind::cuda ? cuda::adam(device, n, lr, beta1, beta2, eps, step, grad, m, v, weight)
                                        : cpu::adam(device, n, lr, beta1, beta2, eps, step, grad, m, v, weight);
    }
};

}  // namespace shardrun::kernels::mlp
