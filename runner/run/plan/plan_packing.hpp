#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "runner/gpu/gpu_packing.hpp"
#include "runner/run/plan/plan_report.hpp"

namespace shardrun::run {

/**
 * `plan`'s GPU packing section (issue 26): for each node, each device (a GPU or a MIG
 * instance) with the ranks bound to it and the tasks each runs at once (tasks_per_gpu), the
 * sharing mode, and under MPS each task's thread share and memory limit. Empty when the
 * made-up node has no GPUs, or when the job neither shares GPUs nor the node splits them.
 */
std::string packing_text(const job::JobSpec& spec, const PlanReport& report, const PlanNodes& nodes,
                         const gpu::MigSplit& mig);

/** The same as a JSON value (null when packing_text is empty). */
nlohmann::json packing_json(const job::JobSpec& spec, const PlanReport& report, const PlanNodes& nodes,
                            const gpu::MigSplit& mig);

}  // namespace shardrun::run
