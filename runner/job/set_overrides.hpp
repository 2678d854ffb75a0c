#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace shardrun::job {

/**
 * Applies --set "key.path=value" assignments to the job's root mapping, in order; each value is
 * parsed as YAML (a plain string when it is not). Stage 1 of reading a job, after parse_yaml.
 * @return the key paths set, for YamlContext ("--set params.n" in messages)
 * @throws UsageError for an assignment without key.path=, or a value whose quote never closes
 */
std::set<std::string> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides);

}  // namespace shardrun::job
