#pragma once

// What `shardrun plan` says of device: auto's routing (issue 26, point 4): how many tasks go
// to the CPU and to the GPU, and by which rule. Kept apart from plan_report's packing.
#include <cstdint>
#include <string>

#include "runner/run/setup/prepared_job.hpp"

namespace shardrun::run {

struct RoutePlan {
    bool automatic = false;      ///< the job's device is auto; a job naming cpu or cuda routes nothing
    bool gpus = false;           ///< the planned nodes have GPUs (--gpus-per-node)
    std::string rule;            ///< the CPU rule, empty when the job has none
    std::string origin;          ///< where the rule comes from
    std::uint64_t cpu_tasks = 0;
    std::uint64_t gpu_tasks = 0;
};

/**
 * Counts where each task would run: its own `device` first, then device: auto's rule. O(sweep
 * points): a point's chunks share its parameters.
 * @param gpus_per_node  0: no GPU, every task on the CPU
 */
RoutePlan route_plan(const PreparedJob& job, int gpus_per_node);

/** "routing (device: auto): 12 tasks on the CPU, 4 on the GPU; rule ... (origin)\n", or "" when nothing routes. */
std::string route_plan_text(const RoutePlan& plan);

}  // namespace shardrun::run
