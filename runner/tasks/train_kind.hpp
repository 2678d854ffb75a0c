#pragma once

#include <memory>
#include <mutex>

#include "runner/core/task_kind.hpp"
#include "runner/tasks/param_table.hpp"

namespace shardrun::tasks {

/**
 * `task: train`: trains a data-parallel MLP on the task's rank group (gpus_per_task members
 * share each global batch; gradient buckets overlap the allreduce with the backward pass).
 * Its parameters are in parameters() (`shardrun kinds train`).
 *
 * backend nccl trains on the rank's GPU: parameters, gradients and activations stay in device
 * memory and the group's NCCL communicator averages the buckets on a side stream. backend
 * mpi trains on the CPU with OpenBLAS and non-blocking MPI. auto: nccl when the rank is bound
 * to a GPU, mpi otherwise. The NCCL communicator is made on the first task and kept for the
 * rest of the run, as its set-up costs hundreds of milliseconds.
 */
class TrainKind : public TaskKind {
public:
    /** @param group_size  gpus_per_task: the batch must split evenly over the members */
    /** @param collective_timeout_seconds  bound of the NCCL set-up and of every NCCL wait */
    TrainKind(int group_size, double collective_timeout_seconds);
    ~TrainKind() override;

    std::string_view name() const noexcept override { return "train"; }
    /** The parameters `task: train` takes (`shardrun kinds train` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;

private:
    /** The NCCL communicator over `host_group` on `ordinal`, made once. Collective on first use. */
    collectives::Communicator& device_group(collectives::Communicator& host_group, int ordinal) const;

    int group_size_;
    double collective_timeout_seconds_;
    mutable std::mutex mutex_;
    mutable collectives::Communicator* nccl_host_ = nullptr;
    mutable std::unique_ptr<collectives::Communicator> nccl_;
};

}  // namespace shardrun::tasks
