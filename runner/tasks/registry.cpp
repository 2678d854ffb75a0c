#include "runner/tasks/registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "runner/errors.hpp"
#include "runner/tasks/exec/exec_kind.hpp"
#include "runner/tasks/kernel_kinds.hpp"
#include "runner/tasks/noop_kind.hpp"
#include "runner/tasks/train_kind.hpp"

namespace shardrun::tasks {
namespace {

std::vector<std::string> built_in_names()
{
    std::vector<std::string> names = {"exec", "noop", "train"};
    for (const auto& entry : kernel_kinds()) names.push_back(entry.name);
    return names;
}

/** Kinds added by register_task_kind(), in registration order. */
std::vector<std::pair<std::string, TaskKindFactory>>& registered_kinds()
{
    static std::vector<std::pair<std::string, TaskKindFactory>> kinds;
    return kinds;
}

}  // namespace

std::vector<std::string> task_kind_names()
{
    auto names = built_in_names();
    for (const auto& [name, make] : registered_kinds()) names.push_back(name);
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
    for (const auto& [name, make] : registered_kinds()) {
        if (name == spec.task) return make(spec);
    }
    throw JobFileError(spec.file + ": task: '" + spec.task + "' is not a task kind");
}

void register_task_kind(std::string name, TaskKindFactory make)
{
    if (name.empty()) throw std::invalid_argument("register_task_kind: the name is empty");
    if (!make) throw std::invalid_argument("register_task_kind: '" + name + "' has no factory");
    const auto names = task_kind_names();
    if (std::find(names.begin(), names.end(), name) != names.end()) {
        throw std::invalid_argument("register_task_kind: '" + name + "' is already a task kind");
    }
    registered_kinds().emplace_back(std::move(name), std::move(make));
}

}  // namespace shardrun::tasks
