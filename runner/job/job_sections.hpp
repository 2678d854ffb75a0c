#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/** `name:` and `task:`. */
void parse_identity(const YAML::Node& root, const YamlContext& context, const std::vector<std::string>& known_tasks,
                    JobSpec& spec);
/** `params:` — a mapping of scalars. */
ParamMap parse_params(const YAML::Node& node, const YamlContext& context);
/** `data:` — items/chunk or input/chunk. */
DataSpec parse_data(const YAML::Node& node, const YamlContext& context);
/** schedule, device, gpus_per_task, slots_per_rank, retries, timeout, timeout_grace, drain_timeout. */
void parse_execution(const YAML::Node& root, const YamlContext& context, JobSpec& spec);
/** `output:` — path defaults to results/<name>.h5. */
OutputSpec parse_output(const YAML::Node& node, const YamlContext& context, const std::string& job_name);
/** `exec:` — required when task is exec, refused otherwise. */
ExecSpec parse_exec(const YAML::Node& node, const YamlContext& context, const std::string& task);

/** An int in [minimum, INT_MAX] at `path`. */
int read_int(const YAML::Node& node, const YamlContext& context, const std::string& path, int minimum);

/** An integer >= minimum at `path`. */
std::int64_t read_integer(const YAML::Node& node, const YamlContext& context, const std::string& path,
                          std::int64_t minimum);

}  // namespace shardrun::job
