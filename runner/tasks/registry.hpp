#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runner/job/job_spec.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** Makes the task kind of a job (one instance serves the whole job). */
using TaskKindFactory = std::function<std::unique_ptr<TaskKind>(const job::JobSpec&)>;

/** Names `task:` may take, in the order the docs list them, then the registered ones. */
std::vector<std::string> task_kind_names();

/** The task kind of `spec.task`, configured from the job (exec reads spec.exec). */
std::unique_ptr<TaskKind> make_task_kind(const job::JobSpec& spec);

/**
 * Adds `task: name` for a program that links shardrun (see examples/custom-task/): call it
 * in main() before shardrun::cli::main(), on every rank. Not thread-safe.
 * @param name  what the job file's `task:` says; not a built-in or already registered name
 * @param make  called once per run with the resolved job, on every rank
 * @throws std::invalid_argument when the name is empty or taken, or make is empty
 */
void register_task_kind(std::string name, TaskKindFactory make);

}  // namespace shardrun::tasks
