#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/job/job_spec.hpp"
#include "runner/tasks/param_table.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** Makes the task kind of a job (one instance serves the whole job). */
using TaskKindFactory = std::function<std::unique_ptr<TaskKind>(const job::JobSpec&)>;

/** A task kind as `shardrun kinds` lists it. */
struct KindInfo {
    std::string name;
    std::string summary;       ///< one line
    const ParamTable* params;  ///< its parameters; an open table takes any names unchecked
};

/** Names `task:` may take, in the order the docs list them, then the registered ones. */
std::vector<std::string> task_kind_names();

/** Every kind, in the order of task_kind_names(). */
std::vector<KindInfo> task_kinds();

/** The kind `task:` calls `name`, or nullopt. */
std::optional<KindInfo> find_task_kind(std::string_view name);

/** The task kind of `spec.task`, configured from the job (exec reads spec.exec). */
std::unique_ptr<TaskKind> make_task_kind(const job::JobSpec& spec);

/**
 * Adds `task: name` for a program that links shardrun (see examples/custom-task/): call it
 * in main() before shardrun::cli::main(), on every rank. Not thread-safe.
 * @param name  what the job file's `task:` says; not a built-in or already registered name
 * @param make  called once per run with the resolved job, on every rank
 * @param params  the parameters it takes, checked before anything runs; open (the default):
 *                any names, checked only by the kind's validate()
 * @param summary  one line for `shardrun kinds`
 * @throws std::invalid_argument when the name is empty or taken, or make is empty
 */
void register_task_kind(std::string name, TaskKindFactory make, ParamTable params = ParamTable{{}, true},
                        std::string summary = "");

}  // namespace shardrun::tasks
