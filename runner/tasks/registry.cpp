#include "runner/tasks/registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "runner/errors.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/exec/exec_kind.hpp"
#include "runner/tasks/kernel_kinds.hpp"
#include "runner/tasks/noop_kind.hpp"
#include "runner/tasks/train_kind.hpp"

namespace shardrun::tasks {
namespace {

/** What register_task_kind() added, in registration order; the table lives as long as the program. */
struct RegisteredKind {
    std::string name;
    std::string summary;
    std::unique_ptr<ParamTable> params;
    TaskKindFactory make;
};

std::vector<RegisteredKind>& registered_kinds()
{
    static std::vector<RegisteredKind> kinds;
    return kinds;
}

// exec passes whatever names the job gives to the user's program.
const ParamTable& exec_parameters()
{
    static const ParamTable table{{}, true};
    return table;
}

std::vector<KindInfo> built_in_kinds()
{
    std::vector<KindInfo> kinds = {
        {"exec", "the user's program, once per task (or one worker per rank); any parameter names, given as "
                 "{name} and SHARDRUN_PARAM_<NAME>",
         &exec_parameters()},
        {"noop", "does nothing; records the task id and its data range length (scheduler and output overhead)",
         &NoopKind::parameters()},
        {"train", "data-parallel MLP training on the task's rank group (MPI or NCCL); loss, accuracy, timings",
         &TrainKind::parameters()},
    };
    for (const auto& entry : kernel_kinds()) kinds.push_back({entry.name, entry.summary, entry.params});
    return kinds;
}

}  // namespace

std::vector<KindInfo> task_kinds()
{
    auto kinds = built_in_kinds();
    for (const auto& kind : registered_kinds()) kinds.push_back({kind.name, kind.summary, kind.params.get()});
    return kinds;
}

std::vector<std::string> task_kind_names()
{
    std::vector<std::string> names;
    for (const auto& kind : task_kinds()) names.push_back(kind.name);
    return names;
}

std::optional<KindInfo> find_task_kind(std::string_view name)
{
    for (auto& kind : task_kinds()) {
        if (kind.name == name) return kind;
    }
    return std::nullopt;
}

std::unique_ptr<TaskKind> make_task_kind(const job::JobSpec& spec)
{
    if (spec.task == "exec") return std::make_unique<ExecKind>(spec.exec, spec.timeout_seconds, spec.timeout_grace_seconds);
    if (spec.task == "noop") return std::make_unique<NoopKind>();
    if (spec.task == "train") return std::make_unique<TrainKind>(spec.gpus_per_task, spec.collective_timeout_seconds);
    for (const auto& entry : kernel_kinds()) {
        if (entry.name == spec.task) return entry.make();
    }
    for (const auto& kind : registered_kinds()) {
        if (kind.name == spec.task) return kind.make(spec);
    }
    SHARDRUN_THROW(JobFileError, spec.file + ": task: '" + spec.task + "' is not a task kind");
}

void register_task_kind(std::string name, TaskKindFactory make, ParamTable params, std::string summary)
{
    if (name.empty()) throw std::invalid_argument("register_task_kind: the name is empty");
    if (!make) throw std::invalid_argument("register_task_kind: '" + name + "' has no factory");
    const auto names = task_kind_names();
    if (std::find(names.begin(), names.end(), name) != names.end()) {
        throw std::invalid_argument("register_task_kind: '" + name + "' is already a task kind");
    }
    // The runner reads `device` for every kind (it picks the task's device), so every table takes it.
    if (!params.open && params.find("device") == nullptr) params.params.push_back(device_param());
    registered_kinds().push_back(
        {std::move(name), std::move(summary), std::make_unique<ParamTable>(std::move(params)), std::move(make)});
}

}  // namespace shardrun::tasks
