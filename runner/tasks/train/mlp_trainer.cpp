#include "runner/tasks/train/mlp_trainer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include "collectives/buckets/gradient_buckets.hpp"
#include "collectives/nccl/nccl_communicator.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/stream_order.hpp"
#include "kernels/mlp/mlp.hpp"
#include "runner/tasks/train/synthetic_data.hpp"

namespace shardrun::tasks::train {
namespace {

using Clock = std::chrono::steady_clock;
using kernels::DeviceBuffer;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }
float* floats(DeviceBuffer& buffer) { return static_cast<float*>(buffer.data()); }

/** Layer sizes: features, width x depth, classes. */
std::vector<int> layer_sizes(const TrainConfig& c)
{
    std::vector<int> sizes{c.features};
    for (int l = 0; l < c.depth; ++l) sizes.push_back(c.width);
    sizes.push_back(c.classes);
    return sizes;
}

DeviceBuffer zeros(const kernels::Device& device, std::size_t count)
{
    DeviceBuffer buffer(device, count * sizeof(float));
    const std::vector<float> zero(count, 0.0f);
    buffer.copy_from_host(std::span<const float>(zero));
    return buffer;
}

/** The model, its optimizer state and one batch's activations, all in the device's memory. */
struct Model {
    kernels::mlp::Ops ops;
    std::vector<int> sizes;
    std::vector<std::size_t> counts;        // elements of W0, b0, W1, b1, ...
    std::vector<DeviceBuffer> params, state1, state2;  // momentum, or Adam's m and v
    std::vector<DeviceBuffer> activations;  // A_0 (input) .. A_L (logits)
    DeviceBuffer labels, upstream, previous;
    int layers() const { return static_cast<int>(sizes.size()) - 1; }
};

void resize_batch(Model& m, int rows)
{
    m.activations.clear();
    for (const int size : m.sizes) m.activations.emplace_back(m.ops.device, static_cast<std::size_t>(rows) * size * 4);
    const int widest = *std::max_element(m.sizes.begin(), m.sizes.end());
    m.labels = DeviceBuffer(m.ops.device, static_cast<std::size_t>(rows) * sizeof(std::int32_t));
    m.upstream = DeviceBuffer(m.ops.device, static_cast<std::size_t>(rows) * widest * 4);
    m.previous = DeviceBuffer(m.ops.device, static_cast<std::size_t>(rows) * widest * 4);
}

Model make_model(const TrainConfig& c, const kernels::Device& device, int rows)
{
    Model m{{device}, layer_sizes(c)};
    for (int l = 0; l < m.layers(); ++l) {
        const auto weights = glorot_uniform(c.seed, l, m.sizes[l], m.sizes[l + 1]);
        m.params.emplace_back(device, weights.size() * 4);
        m.params.back().copy_from_host(std::span<const float>(weights));
        m.params.push_back(zeros(device, static_cast<std::size_t>(m.sizes[l + 1])));
        m.counts.push_back(weights.size());
        m.counts.push_back(static_cast<std::size_t>(m.sizes[l + 1]));
    }
    for (const auto count : m.counts) {
        m.state1.push_back(zeros(device, count));
        m.state2.push_back(zeros(device, count));
    }
    resize_batch(m, rows);
    return m;
}

// A_{l+1} = relu(A_l W_l + b_l); the last layer is linear (logits).
void forward(Model& m, const Dataset& data, std::size_t first_row, int rows)
{
    m.activations[0].copy_from_host(data.x.data() + first_row * data.features,
                                    static_cast<std::size_t>(rows) * data.features * 4);
    m.labels.copy_from_host(data.y.data() + first_row, static_cast<std::size_t>(rows) * 4);
    for (int l = 0; l < m.layers(); ++l) {
        m.ops.matmul(false, false, rows, m.sizes[l + 1], m.sizes[l], 1.0f, floats(m.activations[l]),
                     floats(m.params[2 * l]), 0.0f, floats(m.activations[l + 1]));
        m.ops.add_bias(rows, m.sizes[l + 1], floats(m.params[2 * l + 1]), l + 1 < m.layers(), floats(m.activations[l + 1]));
    }
}

// Gradients from the last layer back; each is handed to its bucket as soon as it exists.
// Tensor order in the buckets: b_{L-1}, W_{L-1}, b_{L-2}, ... (production order).
void backward(Model& m, int rows, collectives::GradientBuckets& buckets)
{
    for (int l = m.layers() - 1; l >= 0; --l) {
        const auto bias_index = static_cast<std::size_t>(2 * (m.layers() - 1 - l));
        m.ops.column_sums(rows, m.sizes[l + 1], floats(m.upstream), buckets.gradient(bias_index).data());  // db = 1ᵀ G
        buckets.mark_ready(bias_index);
        m.ops.matmul(true, false, m.sizes[l], m.sizes[l + 1], rows, 1.0f, floats(m.activations[l]), floats(m.upstream),
                     0.0f, buckets.gradient(bias_index + 1).data());  // dW = A_lᵀ G
        buckets.mark_ready(bias_index + 1);
        if (l == 0) break;
        m.ops.matmul(false, true, rows, m.sizes[l], m.sizes[l + 1], 1.0f, floats(m.upstream), floats(m.params[2 * l]),
                     0.0f, floats(m.previous));  // G_prev = G W_lᵀ
        m.ops.relu_backward(static_cast<std::size_t>(rows) * m.sizes[l], floats(m.activations[l]), floats(m.previous));
        std::swap(m.upstream, m.previous);
    }
}

void update(const TrainConfig& c, Model& m, collectives::GradientBuckets& buckets, int step)
{
    for (std::size_t p = 0; p < m.params.size(); ++p) {
        const auto layer = p / 2;
        const auto tensor = 2 * (static_cast<std::size_t>(m.layers()) - 1 - layer) + (p % 2 == 0 ? 1 : 0);
        const auto grad = buckets.gradient(tensor);
        if (c.optimizer == Optimizer::sgd) {
            m.ops.sgd_momentum(grad.size(), c.lr, c.momentum, grad.data(), floats(m.state1[p]), floats(m.params[p]));
        } else {
            m.ops.adam(grad.size(), c.lr, c.beta1, c.beta2, c.eps, step, grad.data(), floats(m.state1[p]),
                       floats(m.state2[p]), floats(m.params[p]));
        }
    }
}

std::vector<std::size_t> production_order_sizes(const Model& m)
{
    std::vector<std::size_t> sizes;
    for (int l = m.layers() - 1; l >= 0; --l) {
        sizes.push_back(m.counts[static_cast<std::size_t>(2 * l + 1)]);
        sizes.push_back(m.counts[static_cast<std::size_t>(2 * l)]);
    }
    return sizes;
}

/** Gradient buckets in the device's memory, averaged over `device_group`. */
struct Buckets {
    std::vector<DeviceBuffer> memory;
    std::unique_ptr<collectives::GradientBuckets> buckets;
};

Buckets make_buckets(const TrainConfig& c, const Model& m, collectives::Communicator& device_group)
{
    const auto sizes = production_order_sizes(m);
    auto slots = collectives::plan_buckets(sizes, sizeof(float), c.bucket_bytes, c.first_bucket_bytes);
    Buckets b;
    std::vector<float*> pointers;
    for (const auto& slot : slots) {
        if (slot.bucket == b.memory.size()) b.memory.emplace_back();
        auto& memory = b.memory[slot.bucket];
        const auto bytes = (slot.offset + slot.size) * sizeof(float);
        if (memory.bytes() < bytes) memory = DeviceBuffer(m.ops.device, bytes);
    }
    for (auto& memory : b.memory) pointers.push_back(floats(memory));
    std::function<void()> before_launch;
    if (m.ops.device.kind == kernels::DeviceKind::cuda) {
        // The communicator's side stream starts a bucket only after the kernels that wrote it.
        void* side = collectives::nccl::stream(device_group);
        void* compute = kernels::compute_stream(m.ops.device);
        before_launch = [side, compute] { kernels::order_after(side, compute); };
    }
    const bool thread = c.progress_thread && m.ops.device.kind == kernels::DeviceKind::cpu;
    b.buckets = std::make_unique<collectives::GradientBuckets>(device_group, std::move(slots), std::move(pointers),
                                                               std::move(before_launch), thread);
    return b;
}

double validation_accuracy(const TrainConfig& c, Model& m, collectives::Communicator& group)
{
    const auto val = gaussian_blobs(c.seed, c.val_samples, c.features, c.classes, c.noise, 3);
    const int share = c.val_samples / group.size(), first = group.rank() * share;
    resize_batch(m, share);
    forward(m, val, static_cast<std::size_t>(first), share);
    const auto correct = m.ops.score(share, c.classes, floats(m.activations.back()),
                                     static_cast<const std::int32_t*>(m.labels.data())).correct;
    const auto total = group.allreduce_value<std::int64_t>(correct, collectives::ReduceOp::sum);
    return static_cast<double>(total) / (share * group.size());
}

std::vector<std::vector<float>> host_params(const Model& m)
{
    std::vector<std::vector<float>> params;
    for (std::size_t p = 0; p < m.params.size(); ++p) {
        params.emplace_back(m.counts[p]);
        m.params[p].copy_to_host(std::span<float>(params.back()));
    }
    return params;
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

namespace {
// A run's stop cut the training short after `epochs` whole epochs: a failure, never a result.
TrainResult& stopped(TrainResult& result, int epochs)
{
    result.failure = fmt::format("stopped before it finished, after {} whole epochs", epochs);
    return result;
}
}  // namespace

TrainResult train_mlp(const TrainConfig& c, collectives::Communicator& group)
{
    return train_mlp(c, group, group, kernels::Device::cpu());
}

TrainResult train_mlp(const TrainConfig& c, collectives::Communicator& group, collectives::Communicator& device_group,
                      const kernels::Device& device)
{
    const int local = c.batch / group.size(), steps = c.samples / c.batch;
    const auto data = gaussian_blobs(c.seed, c.samples, c.features, c.classes, c.noise, 2);
    Model m = make_model(c, device, local);
    auto b = make_buckets(c, m, device_group);
    TrainResult result;
    const auto started = Clock::now();
    // Alone, a stop ends the steps at once; a group's members agree on it at the end of an
    // epoch (its sums' third entry), as one leaving the steps early would hang the others.
    const bool alone = group.size() == 1;
    for (int epoch = 0; epoch < c.epochs; ++epoch) {
        std::array<double, 3> sums{0, 0, 0};  // loss, correct, members stopping
        for (int s = 0; s < steps; ++s) {
            if (alone && device.stop.stop_requested()) return stopped(result, epoch);
            const auto row = static_cast<std::size_t>(s) * c.batch + static_cast<std::size_t>(group.rank()) * local;
            forward(m, data, row, local);
            const auto score = m.ops.softmax_cross_entropy(local, c.classes, floats(m.activations.back()),
                                                           static_cast<const std::int32_t*>(m.labels.data()),
                                                           1.0f / local, floats(m.upstream));
            sums[0] += score.loss_sum;
            sums[1] += static_cast<double>(score.correct);
            backward(m, local, *b.buckets);
            const auto times = b.buckets->wait();
            result.comm_seconds += times.communication;
            result.comm_exposed_seconds += times.exposed;
            update(c, m, *b.buckets, epoch * steps + s + 1);
        }
        sums[2] = device.stop.stop_requested() ? 1 : 0;
        group.allreduce(std::span<double>(sums), collectives::ReduceOp::sum);
        if (sums[2] > 0 && epoch + 1 < c.epochs) return stopped(result, epoch + 1);
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
    result.params = host_params(m);
    return result;
}

}  // namespace shardrun::tasks::train
