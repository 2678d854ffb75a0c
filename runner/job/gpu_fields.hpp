#pragma once

#include <yaml-cpp/yaml.h>

#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * `telemetry_interval`, `auto_device: {cpu_if: "<rule>"}` and `gpu_fault_limit: N` (issue 26). The rule is parsed
 * here, against the names the job gives its tasks (params and sweep axes), so a bad one ends
 * the run before anything is written. Needs spec.params, spec.sweep, spec.device and spec.exec.
 * @throws JobFileError  "<file>:<line>:<col>: auto_device.cpu_if: ..."
 */
void parse_gpu_fields(const YAML::Node& root, const YamlContext& context, JobSpec& spec);

}  // namespace shardrun::job
