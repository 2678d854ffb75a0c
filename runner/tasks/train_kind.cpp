#include "runner/tasks/train_kind.hpp"
#include "runner/tasks/registry.hpp"

#include <memory>

#include "collectives/nccl/nccl_communicator.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "runner/errors.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/kernel_kind_support.hpp"
#include "runner/tasks/train/mlp_trainer.hpp"

namespace shardrun::tasks {
namespace {

using namespace kernel_support;

train::TrainConfig read_config(const job::ParamMap& given)
{
    const auto p = TrainKind::parameters().with_defaults(given);
    train::TrainConfig c;
    c.features = static_cast<int>(p.integer("features"));
    c.classes = static_cast<int>(p.integer("classes"));
    c.width = static_cast<int>(p.integer("width"));
    c.depth = static_cast<int>(p.integer("depth"));
    c.samples = static_cast<int>(p.integer("samples"));
    c.val_samples = static_cast<int>(p.integer("val_samples"));
    c.batch = static_cast<int>(p.integer("batch"));
    c.epochs = static_cast<int>(p.integer("epochs"));
    c.lr = static_cast<float>(p.number("lr"));
    c.momentum = static_cast<float>(p.number("momentum"));
    c.noise = static_cast<float>(p.number("noise"));
    c.seed = static_cast<std::uint64_t>(p.integer("seed"));
    const auto optimizer = p.text("optimizer");
    if (optimizer != "sgd" && optimizer != "adam") {
        SHARDRUN_THROW(JobFileError, "params.optimizer: '" + optimizer + "' is not allowed; allowed: sgd, adam");
    }
    c.optimizer = optimizer == "adam" ? train::Optimizer::adam : train::Optimizer::sgd;
    const auto bucket_mb = p.number("bucket_mb");
    if (!(bucket_mb > 0 && bucket_mb <= 4096)) SHARDRUN_THROW(JobFileError, "params.bucket_mb: must be in (0, 4096]");
    c.bucket_bytes = static_cast<std::size_t>(bucket_mb * (1 << 20));
    return c;
}

std::string read_backend(const job::ParamMap& given)
{
    const auto backend = TrainKind::parameters().with_defaults(given).text("backend");
    if (backend != "auto" && backend != "mpi" && backend != "nccl") {
        SHARDRUN_THROW(JobFileError, "params.backend: '" + backend + "' is not allowed; allowed: auto, mpi, nccl");
    }
    return backend;
}

}  // namespace

TrainKind::TrainKind(int group_size, double collective_timeout_seconds)
    : group_size_(group_size), collective_timeout_seconds_(collective_timeout_seconds > 0 ? collective_timeout_seconds : 600)
{
}

TrainKind::~TrainKind() = default;

const ParamTable& TrainKind::parameters()
{
    static const ParamTable table{{
        integer_param("features", 32, at_least(1), "input columns of the synthetic data"),
        integer_param("classes", 4, at_least(2), "Gaussian blobs to tell apart"),
        integer_param("width", 64, at_least(1), "units per hidden layer"),
        integer_param("depth", 2, at_least(0), "hidden layers"),
        integer_param("samples", 4096, at_least(1), "training rows; an epoch is samples / batch steps"),
        integer_param("val_samples", 1024, at_least(1), "validation rows"),
        integer_param("batch", 256, at_least(1), "global batch, split evenly over the gpus_per_task members"),
        integer_param("epochs", 5, at_least(1), "passes over the training rows"),
        number_param("lr", 0.05, above_up_to(0, 10), "learning rate"),
        number_param("momentum", 0.9, from_below(0, 1), "SGD momentum"),
        choice_param("optimizer", "sgd", {"sgd", "adam"}, "update rule"),
        number_param("noise", 0.5, at_least(0), "spread of the blobs"),
        integer_param("seed", 0, at_least(0), "seed of the data and the initial weights"),
        number_param("bucket_mb", 25.0, above_up_to(0, 4096), "gradient bucket size in MiB (allreduce granularity)"),
        choice_param("backend", "auto", {"auto", "mpi", "nccl"}, "auto: nccl on a GPU rank, mpi on a CPU rank"),
        device_param(),
    }};
    return table;
}

void TrainKind::validate(const job::ParamMap& params, const JobView& /*job*/) const
{
    const auto config = read_config(params);
    if (const auto problem = train::config_problem(config, group_size_); !problem.empty()) SHARDRUN_THROW(JobFileError, problem);
    if (read_backend(params) != "nccl") return;
    if (!collectives::nccl::compiled()) {
        SHARDRUN_THROW(JobFileError, "params.backend: nccl needs a shardrun built with CUDA and NCCL; this one has neither "
                                     "(use backend: mpi)");
    }
    if (const auto cuda = kernels::query_cuda_runtime(); cuda.device_count == 0) {
        SHARDRUN_THROW(JobFileError, "params.backend: nccl needs a GPU, and none is visible: " + cuda.no_device_reason);
    }
}

collectives::Communicator& TrainKind::device_group(collectives::Communicator& host_group, int ordinal) const
{
    std::lock_guard lock(mutex_);
    if (nccl_ == nullptr || nccl_host_ != &host_group) {
        nccl_ = collectives::nccl::make_nccl_communicator(host_group, ordinal, collective_timeout_seconds_);
        nccl_host_ = &host_group;
    }
    return *nccl_;
}

std::vector<io::FieldSpec> TrainKind::fields(const job::ParamMap& params) const
{
    const auto epochs = static_cast<std::size_t>(std::max<std::int64_t>(1, parameters().with_defaults(params).integer("epochs")));
    return {{"loss", io::DType::float64, {epochs}, ""},
            {"train_accuracy", io::DType::float64, {}, ""},
            {"val_accuracy", io::DType::float64, {}, ""},
            {"samples_per_s", io::DType::float64, {}, "1/s"},
            {"compute_seconds", io::DType::float64, {}, "s"},
            {"comm_seconds", io::DType::float64, {}, "s"},
            {"comm_exposed_seconds", io::DType::float64, {}, "s"}};
}

TaskOutcome TrainKind::run(const TaskContext& context) const
{
    auto config = read_config(*context.params);
    auto* group = context.group.comm;
    if (group == nullptr) throw std::logic_error("train: the task has no group communicator");
    const auto backend = read_backend(*context.params);
    const bool on_gpu = backend == "nccl" || (backend == "auto" && context.device.cuda);
    if (on_gpu && !context.device.cuda) return TaskOutcome::failure(1, "train: backend nccl, but this rank is bound to the CPU");
    // Either device carries the run's stop flag: the steps end early once it is set.
    const kernels::StopToken stop(context.stop);
    const auto result = on_gpu ? train::train_mlp(config, *group, device_group(*group, context.device.ordinal),
                                                  kernel_support::device_of(context))
                               : train::train_mlp(config, *group, *group, kernels::Device::cpu().stoppable(stop));
    if (!result.failure.empty()) return TaskOutcome::failure(1, "train: " + result.failure);
    return {io::TaskStatus::ok, 0, "",
            {array_bytes(result.loss.data(), result.loss.size(), result.loss.size()),
             scalar_bytes(result.train_accuracy), scalar_bytes(result.val_accuracy), scalar_bytes(result.samples_per_s),
             scalar_bytes(result.compute_seconds), scalar_bytes(result.comm_seconds),
             scalar_bytes(result.comm_exposed_seconds)}};
}

TaskKindEntry train_kind_entry()
{
    return {"train", "data-parallel MLP training on the task's rank group (MPI or NCCL); loss, accuracy, timings",
            &TrainKind::parameters(), [](const job::JobSpec& spec) {
                return std::make_unique<TrainKind>(spec.gpus_per_task, spec.collective_timeout_seconds);
            }};
}

}  // namespace shardrun::tasks
