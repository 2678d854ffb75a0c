#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace shardrun::job {

/**
 * Canonical JSON (keys in file order, since axis order decides task ids; typed scalars) of the parts of a job that decide its task
 * ids and their results: task, params, sweep, data and exec. Two runs with equal text here
 * are the same job for --resume; name, output, schedule, retries and timeouts may differ.
 */
std::string resolved_json(const YAML::Node& root);

}  // namespace shardrun::job
