#pragma once

#include <yaml-cpp/yaml.h>

#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/** The top-level keys parse_gpu_sharing reads. */
inline constexpr const char* gpu_sharing_keys[] = {"tasks_per_gpu", "gpu_sharing", "gpu_threads", "gpu_memory"};

/**
 * `tasks_per_gpu`, `gpu_sharing`, `gpu_threads`, `gpu_memory` into spec.gpu_sharing, after
 * parse_execution (it checks them against device, slots_per_rank, gpus_per_task and
 * gpus_per_rank, and sets slots_per_rank to tasks_per_gpu).
 * @throws JobFileError at the offending key
 */
void parse_gpu_sharing(const YAML::Node& root, const YamlContext& context, JobSpec& spec);

}  // namespace shardrun::job
