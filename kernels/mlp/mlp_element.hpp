#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/common/host_device.hpp"

namespace shardrun::kernels::mlp {

/** max(x, 0) */
SHARDRUN_HOST_DEVICE inline float relu(float x) { return x > 0.0f ? x : 0.0f; }

/** dL/dx of relu given its output y: the upstream gradient where y > 0, else 0. */
SHARDRUN_HOST_DEVICE inline float relu_backward(float y, float upstream) { return y > 0.0f ? upstream : 0.0f; }

/** SGD with momentum (PyTorch's form): v = mu*v + g; w -= lr*v. */
SHARDRUN_HOST_DEVICE inline void sgd_momentum_step(float& weight, float& velocity, float grad, float lr, float momentum)
{
    velocity = momentum * velocity + grad;
    weight -= lr * velocity;
}

/** Adam (Kingma & Ba) with bias correction; step counts from 1. */
SHARDRUN_HOST_DEVICE inline void adam_step(float& weight, float& m, float& v, float grad, float lr, float beta1,
                                           float beta2, float eps, int step)
{
    m = beta1 * m + (1.0f - beta1) * grad;
    v = beta2 * v + (1.0f - beta2) * grad * grad;
    const float m_hat = m / (1.0f - powf(beta1, static_cast<float>(step)));
    const float v_hat = v / (1.0f - powf(beta2, static_cast<float>(step)));
    weight -= lr * m_hat / (sqrtf(v_hat) + eps);
}

/**
 * Softmax cross-entropy of one row of logits: writes (softmax - onehot) * scale into grad
 * and returns the row's loss, -log softmax[label]; `argmax` gets the predicted class.
 */
SHARDRUN_HOST_DEVICE inline float softmax_cross_entropy_row(const float* logits, int classes, int label, float scale,
                                                            float* grad, int& argmax)
{
    float top = logits[0];
    argmax = 0;
    for (int c = 1; c < classes; ++c) {
        if (logits[c] > top) {
            top = logits[c];
            argmax = c;
        }
    }
    float sum = 0.0f;
    for (int c = 0; c < classes; ++c) sum += expf(logits[c] - top);
    const float log_sum = logf(sum);
    for (int c = 0; c < classes; ++c) {
        const float p = expf(logits[c] - top - log_sum);
        grad[c] = (p - (c == label ? 1.0f : 0.0f)) * scale;
    }
    return log_sum - (logits[label] - top);
}

}  // namespace shardrun::kernels::mlp
