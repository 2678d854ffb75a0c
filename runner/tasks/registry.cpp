#include "runner/tasks/registry.hpp"

#include "runner/errors.hpp"
#include "runner/tasks/exec/exec_kind.hpp"
#include "runner/tasks/kernel_kinds.hpp"
#include "runner/tasks/noop_kind.hpp"
#include "runner/tasks/train_kind.hpp"

namespace shardrun::tasks {

std::vector<std::string> task_kind_names()
{
    std::vector<std::string> names = {"exec", "noop", "train"};
    for (const auto& entry : kernel_kinds()) names.push_back(entry.name);
    return names;
}

std::unique_ptr<TaskKind> make_task_kind(const job::JobSpec& spec)
{
    if (spec.task == "exec") return std::make_unique<ExecKind>(spec.exec, spec.timeout_seconds, spec.timeout_grace_seconds);
    if (spec.task == "noop") return std::make_unique<NoopKind>();
    if (spec.task == "train") return std::make_unique<TrainKind>(spec.gpus_per_task, spec.collective_timeout_seconds);
    for (const auto& entry : kernel_kinds()) {
        if (entry.name == spec.task) return entry.make();
    }
    throw JobFileError(spec.file + ": task: '" + spec.task + "' is not a task kind");
}

}  // namespace shardrun::tasks
