#pragma once

// `device: auto` routing by size (issue 26, point 4): which rule a job's tasks follow, and
// where one task goes. The rule itself is runner/job/auto_device_rule.hpp; this file binds it to a job.
#include <optional>
#include <string>

#include "runner/env/device_binding.hpp"
#include "runner/job/auto_device_rule.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/job/param_map.hpp"
#include "runner/tasks/param_table.hpp"

namespace shardrun::run {

/** The CPU rule one job's tasks follow under device: auto. */
struct TaskRoute {
    job::CpuRule rule;
    std::string origin;                        ///< "auto_device.cpu_if in the job", "gemm's built-in rule"
    const tasks::ParamTable* table = nullptr;  ///< the kind's parameters, whose defaults fill unset values
};

/**
 * The job's own `auto_device.cpu_if`, else its kind's built-in rule (TaskKindEntry::cpu_if),
 * else nullopt (the tasks run on the rank's device). Also nullopt unless `device: auto`.
 */
std::optional<TaskRoute> route_of(const job::JobSpec& spec);

/** True when `route` sends a task with `params` to the CPU; values it lacks come from the kind's defaults. */
bool routes_to_cpu(const TaskRoute& route, const job::ParamMap& params);

/**
 * The pure decision: a task runs on the CPU instead of its rank's GPU only when it asked for
 * no device or for `auto` (explicit cpu and cuda are the task's own choice), the rank has a
 * GPU, and the rule holds for it. Without a GPU every task is on the CPU anyway.
 */
bool auto_sends_to_cpu(bool rank_has_gpu, const job::ParamValue* requested, bool rule_holds);

/** The CPU binding of a task that device: auto sent there (its label is "cpu", as /tasks/device records). */
env::DeviceBinding routed_cpu_binding(const TaskRoute& route);

}  // namespace shardrun::run
