#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "kernels/common/device.hpp"

namespace shardrun::tasks::train {

enum class Optimizer { sgd, adam };

/** A data-parallel MLP training run: input features -> depth x width (ReLU) -> classes. */
struct TrainConfig {
    int features = 32;
    int classes = 4;
    int width = 64;
    int depth = 2;             ///< hidden layers
    int samples = 4096;        ///< training rows; epochs run samples / batch steps
    int val_samples = 1024;
    int batch = 256;           ///< global batch, split evenly over the group's members
    int epochs = 5;
    float lr = 0.05f;
    float momentum = 0.9f;     ///< SGD
    Optimizer optimizer = Optimizer::sgd;
    float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;  ///< Adam
    float noise = 0.5f;        ///< blob spread
    std::uint64_t seed = 0;
    std::size_t bucket_bytes = 25u << 20;
    std::size_t first_bucket_bytes = 1u << 20;
    /** Advance gradient allreduces from a background thread during backward. Off by default: on
     *  the CPU its wake-ups cost the step more than the overlap it adds (benchmarks/README.md). */
    bool progress_thread = false;
};

/** What a training run produced (the same on every member). */
struct TrainResult {
    std::vector<double> loss;        ///< mean training loss of each epoch
    double train_accuracy = 0;       ///< over the last epoch's batches
    double val_accuracy = 0;
    double samples_per_s = 0;
    double compute_seconds = 0;      ///< step time not spent waiting for gradients
    double comm_seconds = 0;         ///< gradient allreduce time, first bucket start to last done
    double comm_exposed_seconds = 0; ///< of that, not hidden behind the backward pass
    std::vector<std::vector<float>> params;  ///< W0, b0, W1, b1, ... after the last step
    std::string failure;             ///< set when training diverged ("loss is NaN in epoch 3") or the device's stop token cut it short
};

/** Checks a config; returns "field: problem" or "" (group_size: members sharing the batch). */
std::string config_problem(const TrainConfig& config, int group_size);

/**
 * Trains on `group` (every member calls it): member r takes rows [r*B/G, (r+1)*B/G) of each
 * global batch, computes its gradients, and gradient buckets average them over the group
 * while the backward pass goes on; then every member applies the same update.
 */
TrainResult train_mlp(const TrainConfig& config, collectives::Communicator& group);

/**
 * The same on `device`: parameters, gradients and activations stay in its memory across the
 * steps (only each step's input rows and the loss go between host and device). On CUDA,
 * `device_group` is the group's NCCL communicator, whose side stream averages each bucket
 * once the kernels that wrote it have run; on the CPU it is `group` itself.
 */
TrainResult train_mlp(const TrainConfig& config, collectives::Communicator& group,
                      collectives::Communicator& device_group, const kernels::Device& device);

}  // namespace shardrun::tasks::train
