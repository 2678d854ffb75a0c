#include "runner/tasks/registry.hpp"

#include <deque>
#include <stdexcept>
#include <utility>

#include "runner/errors.hpp"
#include "runner/tasks/blur_kind.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/embed_kind.hpp"
#include "runner/tasks/exec_kind.hpp"
#include "runner/tasks/gemm_kind.hpp"
#include "runner/tasks/heat2d_kind.hpp"
#include "runner/tasks/montecarlo_kind.hpp"
#include "runner/tasks/noop_kind.hpp"
#include "runner/tasks/train_kind.hpp"

namespace shardrun::tasks {
namespace {

// exec passes whatever names the job gives to the user's program.
const ParamTable& exec_parameters()
{
    static const ParamTable table{{}, true};
    return table;
}

// A kind whose instance needs nothing of the job.
template <typename Kind>
TaskKindFactory plain()
{
    return [](const job::JobSpec&) { return std::make_unique<Kind>(); };
}

std::vector<TaskKindEntry> built_in_kinds()
{
    return {
        {"exec", "the user's program, once per task (or one worker per rank); any parameter names, given as "
                 "{name} and SHARDRUN_PARAM_<NAME>",
         &exec_parameters(),
         [](const job::JobSpec& spec) {
             return std::make_unique<ExecKind>(spec.exec, spec.timeout_seconds, spec.timeout_grace_seconds);
         }},
        {"noop", "does nothing; records the task id and its data range length (scheduler and output overhead)",
         &NoopKind::parameters(), plain<NoopKind>()},
        {"train", "data-parallel MLP training on the task's rank group (MPI or NCCL); loss, accuracy, timings",
         &TrainKind::parameters(),
         [](const job::JobSpec& spec) {
             return std::make_unique<TrainKind>(spec.gpus_per_task, spec.collective_timeout_seconds);
         }},
        {"gemm", "matrix product C = A B on the CPU (OpenBLAS) or GPU (cuBLAS); seconds, GFLOP/s, checksum",
         &GemmKind::parameters(), plain<GemmKind>()},
        {"blur", "Gaussian blur of images from data.input (or synthetic ones), a chunk of images per task",
         &BlurKind::parameters(), plain<BlurKind>()},
        {"heat2d", "explicit 2-D heat equation on an nx x ny grid; final field, total heat, peak",
         &Heat2dKind::parameters(), plain<Heat2dKind>()},
        {"montecarlo", "Monte Carlo price of a European call, the same bits on any device; price, standard error",
         &MonteCarloKind::parameters(), plain<MonteCarloKind>()},
        {"embed", "rows of data.input (or synthetic ones) times a weight matrix, activated, unit length",
         &EmbedKind::parameters(), plain<EmbedKind>()},
    };
}

std::vector<TaskKindEntry>& table()
{
    static std::vector<TaskKindEntry> kinds = built_in_kinds();
    return kinds;
}

// The tables of registered kinds; a deque keeps their addresses as it grows.
std::deque<ParamTable>& registered_tables()
{
    static std::deque<ParamTable> tables;
    return tables;
}

}  // namespace

const std::vector<TaskKindEntry>& task_kinds() { return table(); }

std::vector<std::string> task_kind_names()
{
    std::vector<std::string> names;
    for (const auto& kind : table()) names.push_back(kind.name);
    return names;
}

const TaskKindEntry* find_task_kind(std::string_view name)
{
    for (const auto& kind : table()) {
        if (kind.name == name) return &kind;
    }
    return nullptr;
}

std::unique_ptr<TaskKind> make_task_kind(const job::JobSpec& spec)
{
    if (const auto* kind = find_task_kind(spec.task)) return kind->make(spec);
    SHARDRUN_THROW(JobFileError, spec.file + ": task: '" + spec.task + "' is not a task kind");
}

void register_task_kind(std::string name, TaskKindFactory make, ParamTable params, std::string summary)
{
    if (name.empty()) throw std::invalid_argument("register_task_kind: the name is empty");
    if (!make) throw std::invalid_argument("register_task_kind: '" + name + "' has no factory");
    if (find_task_kind(name) != nullptr) {
        throw std::invalid_argument("register_task_kind: '" + name + "' is already a task kind");
    }
    // The runner reads `device` for every kind (it picks the task's device), so every table takes it.
    if (!params.open && params.find("device") == nullptr) params.params.push_back(device_param());
    const auto& owned = registered_tables().emplace_back(std::move(params));
    table().push_back({std::move(name), std::move(summary), &owned, std::move(make)});
}

}  // namespace shardrun::tasks
