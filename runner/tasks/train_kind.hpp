#pragma once

#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/**
 * `task: train`: trains a data-parallel MLP on the task's rank group (gpus_per_task members
 * share each global batch; gradient buckets overlap the allreduce with the backward pass).
 * params: features (32), classes (4), width (64), depth (2), samples (4096), val_samples
 * (1024), batch (256, global), epochs (5), lr (0.05), momentum (0.9), optimizer (sgd | adam),
 * noise (0.5), seed (0), bucket_mb (25).
 */
class TrainKind : public TaskKind {
public:
    /** @param group_size  gpus_per_task: the batch must split evenly over the members */
    explicit TrainKind(int group_size) : group_size_(group_size) {}

    std::string_view name() const noexcept override { return "train"; }
    void validate(const ParamMap& params) const override;
    std::vector<io::FieldSpec> fields(const ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;

private:
    int group_size_;
};

}  // namespace shardrun::tasks
