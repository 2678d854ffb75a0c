#include "runner/tasks/train/mlp_trainer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include "collectives/buckets/gradient_buckets.hpp"
#include "kernels/mlp/mlp.hpp"
#include "runner/tasks/train/synthetic_data.hpp"

namespace shardrun::tasks::train {
namespace {

namespace mlp = kernels::mlp::cpu;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/** Layer sizes: features, width x depth, classes. */
std::vector<int> layer_sizes(const TrainConfig& c)
{
    std::vector<int> sizes{c.features};
    for (int l = 0; l < c.depth; ++l) sizes.push_back(c.width);
    sizes.push_back(c.classes);
    return sizes;
}

/** The model, its optimizer state and the activations of one local batch. */
struct Model {
    std::vector<int> sizes;
    std::vector<std::vector<float>> params, state1, state2;  // W0, b0, W1, b1, ...; momentum or Adam m, v
    std::vector<std::vector<float>> activations;             // A_0 (input) .. A_L (logits)
    int layers() const { return static_cast<int>(sizes.size()) - 1; }
};

void resize_activations(Model& m, int rows)
{
    m.activations.clear();
    for (const int size : m.sizes) m.activations.emplace_back(static_cast<std::size_t>(rows) * size);
}

Model make_model(const TrainConfig& c, int rows)
{
    Model m;
    m.sizes = layer_sizes(c);
    for (int l = 0; l < m.layers(); ++l) {
        m.params.push_back(glorot_uniform(c.seed, l, m.sizes[l], m.sizes[l + 1]));
        m.params.emplace_back(static_cast<std::size_t>(m.sizes[l + 1]), 0.0f);
    }
    for (const auto& p : m.params) {
        m.state1.emplace_back(p.size(), 0.0f);
        m.state2.emplace_back(p.size(), 0.0f);
    }
    resize_activations(m, rows);
    return m;
}

// A_{l+1} = relu(A_l W_l + b_l); the last layer is linear (logits).
void forward(Model& m, const float* x, int rows)
{
    std::copy_n(x, m.activations[0].size(), m.activations[0].begin());
    for (int l = 0; l < m.layers(); ++l) {
        mlp::matmul(false, false, rows, m.sizes[l + 1], m.sizes[l], 1.0f, m.activations[l].data(),
                    m.params[2 * l].data(), 0.0f, m.activations[l + 1].data());
        mlp::add_bias(rows, m.sizes[l + 1], m.params[2 * l + 1].data(), l + 1 < m.layers(), m.activations[l + 1].data());
    }
}

// Gradients from the last layer back; each is handed to its bucket as soon as it exists.
// Tensor order in the buckets: b_{L-1}, W_{L-1}, b_{L-2}, ... (production order).
void backward(Model& m, std::vector<float>& upstream, int rows, collectives::GradientBuckets& buckets)
{
    std::vector<float> previous;
    for (int l = m.layers() - 1; l >= 0; --l) {
        const auto bias_index = static_cast<std::size_t>(2 * (m.layers() - 1 - l));
        mlp::column_sums(rows, m.sizes[l + 1], upstream.data(), buckets.gradient(bias_index).data());  // db = 1ᵀ G
        buckets.mark_ready(bias_index);
        mlp::matmul(true, false, m.sizes[l], m.sizes[l + 1], rows, 1.0f, m.activations[l].data(), upstream.data(), 0.0f,
                    buckets.gradient(bias_index + 1).data());  // dW = A_lᵀ G
        buckets.mark_ready(bias_index + 1);
        if (l == 0) break;
        previous.assign(static_cast<std::size_t>(rows) * m.sizes[l], 0.0f);
        mlp::matmul(false, true, rows, m.sizes[l], m.sizes[l + 1], 1.0f, upstream.data(), m.params[2 * l].data(), 0.0f,
                    previous.data());  // G_prev = G W_lᵀ
        mlp::relu_backward(previous.size(), m.activations[l].data(), previous.data());
        upstream.swap(previous);
    }
}

void update(const TrainConfig& c, Model& m, collectives::GradientBuckets& buckets, int step)
{
    for (std::size_t p = 0; p < m.params.size(); ++p) {
        const auto layer = p / 2;
        const auto tensor = 2 * (static_cast<std::size_t>(m.layers()) - 1 - layer) + (p % 2 == 0 ? 1 : 0);
        const auto grad = buckets.gradient(tensor);
        if (c.optimizer == Optimizer::sgd) {
            mlp::sgd_momentum(grad.size(), c.lr, c.momentum, grad.data(), m.state1[p].data(), m.params[p].data());
        } else {
            mlp::adam(grad.size(), c.lr, c.beta1, c.beta2, c.eps, step, grad.data(), m.state1[p].data(),
                      m.state2[p].data(), m.params[p].data());
        }
    }
}

std::vector<std::size_t> production_order_sizes(const Model& m)
{
    std::vector<std::size_t> sizes;
    for (int l = m.layers() - 1; l >= 0; --l) {
        sizes.push_back(m.params[2 * l + 1].size());
        sizes.push_back(m.params[2 * l].size());
    }
    return sizes;
}

double validation_accuracy(const TrainConfig& c, Model& m, collectives::Communicator& group)
{
    const auto val = gaussian_blobs(c.seed, c.val_samples, c.features, c.classes, c.noise, 3);
    const int share = c.val_samples / group.size(), first = group.rank() * share;
    resize_activations(m, share);
    forward(m, val.x.data() + static_cast<std::size_t>(first) * c.features, share);
    const auto correct = mlp::score(share, c.classes, m.activations.back().data(), val.y.data() + first).correct;
    const auto total = group.allreduce_value<std::int64_t>(correct, collectives::ReduceOp::sum);
    return static_cast<double>(total) / (share * group.size());
}

}  // namespace

std::string config_problem(const TrainConfig& c, int group_size)
{
    if (c.features < 1 || c.classes < 2 || c.width < 1 || c.depth < 0) return "params: features >= 1, classes >= 2, width >= 1, depth >= 0";
    if (c.batch < 1 || c.batch % group_size != 0) {
        return fmt::format("params.batch: {} must be a positive multiple of the group size {} (gpus_per_task)", c.batch,
                           group_size);
    }
    if (c.samples < c.batch) return fmt::format("params.samples: {} must be at least the batch {}", c.samples, c.batch);
    if (c.val_samples < group_size) return "params.val_samples: at least one row per group member";
    if (c.epochs < 1) return "params.epochs: at least 1";
    if (!(c.lr > 0 && c.lr <= 10)) return "params.lr: must be in (0, 10]";
    if (!(c.momentum >= 0 && c.momentum < 1)) return "params.momentum: must be in [0, 1)";
    if (!(c.noise >= 0 && std::isfinite(c.noise))) return "params.noise: must be finite and >= 0";
    return "";
}

TrainResult train_mlp(const TrainConfig& c, collectives::Communicator& group)
{
    const int local = c.batch / group.size(), steps = c.samples / c.batch;
    const auto data = gaussian_blobs(c.seed, c.samples, c.features, c.classes, c.noise, 2);
    Model m = make_model(c, local);
    collectives::GradientBuckets buckets(group, production_order_sizes(m), c.bucket_bytes, c.first_bucket_bytes,
                                         c.progress_thread);
    TrainResult result;
    std::vector<float> upstream;
    const auto started = Clock::now();
    for (int epoch = 0; epoch < c.epochs; ++epoch) {
        std::array<double, 2> sums{0, 0};  // loss, correct
        for (int s = 0; s < steps; ++s) {
            const auto row = static_cast<std::size_t>(s) * c.batch + static_cast<std::size_t>(group.rank()) * local;
            forward(m, data.x.data() + row * c.features, local);
            upstream.resize(static_cast<std::size_t>(local) * c.classes);
            const auto score = mlp::softmax_cross_entropy(local, c.classes, m.activations.back().data(),
                                                          data.y.data() + row, 1.0f / local, upstream.data());
            sums[0] += score.loss_sum;
            sums[1] += static_cast<double>(score.correct);
            backward(m, upstream, local, buckets);
            const auto times = buckets.wait();
            result.comm_seconds += times.communication;
            result.comm_exposed_seconds += times.exposed;
            update(c, m, buckets, epoch * steps + s + 1);
        }
        group.allreduce(std::span<double>(sums), collectives::ReduceOp::sum);
        result.loss.push_back(sums[0] / (static_cast<double>(steps) * c.batch));
        result.train_accuracy = sums[1] / (static_cast<double>(steps) * c.batch);
        if (!std::isfinite(result.loss.back())) {
            result.failure = fmt::format("loss is {} in epoch {}", result.loss.back(), epoch + 1);
            return result;
        }
    }
    const double seconds = since(started);
    result.samples_per_s = static_cast<double>(c.epochs) * steps * c.batch / seconds;
    result.compute_seconds = seconds - result.comm_exposed_seconds;
    result.val_accuracy = validation_accuracy(c, m, group);
    result.params = m.params;
    return result;
}

}  // namespace shardrun::tasks::train
