#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runner/job/job_spec.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** Names `task:` may take, in the order the docs list them. */
std::vector<std::string> task_kind_names();

/** The task kind of `spec.task`, configured from the job (exec reads spec.exec). */
std::unique_ptr<TaskKind> make_task_kind(const job::JobSpec& spec);

}  // namespace shardrun::tasks
