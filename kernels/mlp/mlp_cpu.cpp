#include "kernels/mlp/mlp.hpp"

#include <cblas.h>

#include <vector>

#include "kernels/mlp/mlp_element.hpp"

namespace shardrun::kernels::mlp::cpu {

void matmul(const Device&, bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, const float* b, float beta,
            float* c)
{
    // Row-major leading dimensions of A (m x k stored, or k x m when transposed) and B.
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                a, trans_a ? m : k, b, trans_b ? k : n, beta, c, n);
}

void add_bias(const Device&, int rows, int cols, const float* bias, bool relu, float* x)
{
    for (int r = 0; r < rows; ++r) {
        float* row = x + static_cast<std::size_t>(r) * cols;
        for (int c = 0; c < cols; ++c) row[c] = relu ? mlp::relu(row[c] + bias[c]) : row[c] + bias[c];
    }
}

void relu_backward(const Device&, std::size_t n, const float* activation, float* grad)
{
    for (std::size_t i = 0; i < n; ++i) grad[i] = mlp::relu_backward(activation[i], grad[i]);
}

void column_sums(const Device&, int rows, int cols, const float* x, float* out)
{
    for (int c = 0; c < cols; ++c) out[c] = 0.0f;
    for (int r = 0; r < rows; ++r) {
        const float* row = x + static_cast<std::size_t>(r) * cols;
        for (int c = 0; c < cols; ++c) out[c] += row[c];
    }
}

BatchScore softmax_cross_entropy(const Device&, int rows, int classes, const float* logits, const std::int32_t* labels, float scale,
                                 float* grad)
{
    BatchScore score;
    for (int r = 0; r < rows; ++r) {
        const auto offset = static_cast<std::size_t>(r) * classes;
        int predicted = 0;
        score.loss_sum += softmax_cross_entropy_row(logits + offset, classes, labels[r], scale, grad + offset, predicted);
        score.correct += predicted == labels[r] ? 1 : 0;
    }
    return score;
}

BatchScore score(const Device&, int rows, int classes, const float* logits, const std::int32_t* labels)
{
    std::vector<float> scratch(static_cast<std::size_t>(classes));
    BatchScore result;
    for (int r = 0; r < rows; ++r) {
        int predicted = 0;
        result.loss_sum += softmax_cross_entropy_row(logits + static_cast<std::size_t>(r) * classes, classes, labels[r],
                                                     0.0f, scratch.data(), predicted);
        result.correct += predicted == labels[r] ? 1 : 0;
    }
    return result;
}

void sgd_momentum(const Device&, std::size_t n, float lr, float momentum, const float* grad, float* velocity, float* weight)
{
    for (std::size_t i = 0; i < n; ++i) sgd_momentum_step(weight[i], velocity[i], grad[i], lr, momentum);
}

void adam(const Device&, std::size_t n, float lr, float beta1, float beta2, float eps, int step, const float* grad, float* m, float* v,
          float* weight)
{
    for (std::size_t i = 0; i < n; ++i) adam_step(weight[i], m[i], v[i], grad[i], lr, beta1, beta2, eps, step);
}

}  // namespace shardrun::kernels::mlp::cpu
