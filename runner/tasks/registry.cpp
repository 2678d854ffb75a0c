#include "runner/tasks/registry.hpp"

#include <deque>
#include <stdexcept>
#include <utility>

#include "runner/errors.hpp"
#include "runner/tasks/device_param.hpp"

namespace shardrun::tasks {

// The built-in kinds, each defined in its runner/tasks/<name>_kind.cpp. A new kind: its file, its
// line here and in the list below, and its source in runner/tasks/kinds.cmake.
TaskKindEntry exec_kind_entry();
TaskKindEntry noop_kind_entry();
TaskKindEntry train_kind_entry();
TaskKindEntry gemm_kind_entry();
TaskKindEntry blur_kind_entry();
TaskKindEntry heat2d_kind_entry();
TaskKindEntry montecarlo_kind_entry();
TaskKindEntry embed_kind_entry();

namespace {

std::vector<TaskKindEntry> built_in_kinds()
{
    return {exec_kind_entry(), noop_kind_entry(), train_kind_entry(), gemm_kind_entry(), blur_kind_entry(),
            heat2d_kind_entry(), montecarlo_kind_entry(), embed_kind_entry()};
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
