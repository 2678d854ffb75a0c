#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runner/core/task_kind.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/tasks/param_table.hpp"

namespace shardrun::tasks {

/** Makes the task kind of a job (one instance serves the whole job). */
using TaskKindFactory = std::function<std::unique_ptr<TaskKind>(const job::JobSpec&)>;

/** One row of the task kind table: built-in and registered kinds alike. */
struct TaskKindEntry {
    std::string name;          ///< what the job file's `task:` says
    std::string summary;       ///< one line for `shardrun kinds`
    const ParamTable* params;  ///< its parameters, alive as long as the program; an open table takes any names
    TaskKindFactory make;      ///< called once per run with the resolved job, on every rank
    /** A built-in kernel kind (kernels/<name>/): `shardrun selftest` must have a case for it. */
    bool kernel = false;
    /**
     * When `device: auto` runs its tasks on the CPU although the rank has a GPU: a rule over its
     * parameters (runner/job/auto_device_rule.hpp, defaults from `params`); empty: always the rank's device.
     */
    std::string cpu_if;
};

/**
 * The table: the built-in kinds in the order the docs list them (exec, noop, train, then the
 * kernel kinds gemm, blur, heat2d, montecarlo, embed), then the registered ones in the order
 * register_task_kind() added them. The reference stays valid until the next registration.
 * Each built-in kind's row comes from its own runner/tasks/<name>_kind.cpp (<name>_kind_entry()),
 * which the build finds (runner/tasks/kinds.cmake); kinds not in the order above follow by name.
 */
const std::vector<TaskKindEntry>& task_kinds();

/** Names `task:` may take, in the order of task_kinds(). */
std::vector<std::string> task_kind_names();

/** The kind `task:` calls `name`, or nullptr; valid until the next registration. */
const TaskKindEntry* find_task_kind(std::string_view name);

/**
 * The task kind of `spec.task`, configured from the job (exec reads spec.exec).
 * @throws JobFileError when spec.task names no kind
 */
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
