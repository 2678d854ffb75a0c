#pragma once

#include <cstddef>
#include <cstdint>

namespace shardrun::kernels::mlp {

/** Loss and hits of a batch of rows. */
struct BatchScore {
    double loss_sum = 0;  ///< summed per-row cross-entropy
    std::int64_t correct = 0;
};

// The layer operations of a data-parallel MLP on row-major float matrices. These are the
// CPU half (host pointers); GEMMs go through OpenBLAS.
namespace cpu {

/** C[m x n] = alpha * op(A) * op(B) + beta * C, op = transpose when asked (cblas_sgemm). */
void matmul(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, const float* b, float beta,
            float* c);
/** x[r][c] = act(x[r][c] + bias[c]), act = relu or identity. */
void add_bias(int rows, int cols, const float* bias, bool relu, float* x);
/** grad = relu_backward(activation, grad), elementwise. */
void relu_backward(std::size_t n, const float* activation, float* grad);
/** out[c] = sum over rows of x[r][c] (a bias gradient). */
void column_sums(int rows, int cols, const float* x, float* out);
/** Softmax cross-entropy of each row; grad = (softmax - onehot) * scale. */
BatchScore softmax_cross_entropy(int rows, int classes, const float* logits, const std::int32_t* labels, float scale,
                                 float* grad);
/** Predicted classes only (validation). */
BatchScore score(int rows, int classes, const float* logits, const std::int32_t* labels);
void sgd_momentum(std::size_t n, float lr, float momentum, const float* grad, float* velocity, float* weight);
void adam(std::size_t n, float lr, float beta1, float beta2, float eps, int step, const float* grad, float* m, float* v,
          float* weight);

}  // namespace cpu
}  // namespace shardrun::kernels::mlp
