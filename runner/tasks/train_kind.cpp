#include "runner/tasks/train_kind.hpp"

#include <memory>

#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/errors.hpp"
#include "runner/tasks/kernel_kind_support.hpp"
#include "runner/tasks/train/mlp_trainer.hpp"

namespace shardrun::tasks {
namespace {

using namespace kernel_support;

train::TrainConfig read_config(const ParamMap& p)
{
    train::TrainConfig c;
    c.features = static_cast<int>(p.integer_or("features", c.features));
    c.classes = static_cast<int>(p.integer_or("classes", c.classes));
    c.width = static_cast<int>(p.integer_or("width", c.width));
    c.depth = static_cast<int>(p.integer_or("depth", c.depth));
    c.samples = static_cast<int>(p.integer_or("samples", c.samples));
    c.val_samples = static_cast<int>(p.integer_or("val_samples", c.val_samples));
    c.batch = static_cast<int>(p.integer_or("batch", c.batch));
    c.epochs = static_cast<int>(p.integer_or("epochs", c.epochs));
    c.lr = static_cast<float>(p.number_or("lr", c.lr));
    c.momentum = static_cast<float>(p.number_or("momentum", c.momentum));
    c.noise = static_cast<float>(p.number_or("noise", c.noise));
    c.seed = static_cast<std::uint64_t>(p.integer_or("seed", 0));
    const auto optimizer = p.text_or("optimizer", "sgd");
    if (optimizer != "sgd" && optimizer != "adam") {
        throw JobFileError("params.optimizer: '" + optimizer + "' is not allowed; allowed: sgd, adam");
    }
    c.optimizer = optimizer == "adam" ? train::Optimizer::adam : train::Optimizer::sgd;
    const auto bucket_mb = p.number_or("bucket_mb", 25);
    if (!(bucket_mb > 0 && bucket_mb <= 4096)) throw JobFileError("params.bucket_mb: must be in (0, 4096]");
    c.bucket_bytes = static_cast<std::size_t>(bucket_mb * (1 << 20));
    return c;
}

}  // namespace

void TrainKind::validate(const ParamMap& params) const
{
    const auto config = read_config(params);
    if (const auto problem = train::config_problem(config, group_size_); !problem.empty()) throw JobFileError(problem);
}

std::vector<io::FieldSpec> TrainKind::fields(const ParamMap& params) const
{
    const auto epochs = static_cast<std::size_t>(std::max<std::int64_t>(1, params.integer_or("epochs", 5)));
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
    config.progress_thread = collectives::mpi::threads_may_call_mpi();
    auto* group = context.group.comm;
    if (group == nullptr) throw std::logic_error("train: the task has no group communicator");
    const auto result = train::train_mlp(config, *group);
    if (!result.failure.empty()) return failed("train: " + result.failure);
    return {io::TaskStatus::ok, 0, "",
            {array_bytes(result.loss.data(), result.loss.size(), result.loss.size()),
             scalar_bytes(result.train_accuracy), scalar_bytes(result.val_accuracy), scalar_bytes(result.samples_per_s),
             scalar_bytes(result.compute_seconds), scalar_bytes(result.comm_seconds),
             scalar_bytes(result.comm_exposed_seconds)}};
}

}  // namespace shardrun::tasks
