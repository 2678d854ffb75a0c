#pragma once

#include <yaml-cpp/yaml.h>

#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * `max_failures: N` (N >= 1; absent: no limit) and `fail_fast: true | false | K` (K >= 1;
 * true is 5): when a run gives up on its tasks. Bad values fail with file:line:col.
 */
void parse_failure_fields(const YAML::Node& root, const YamlContext& context, JobSpec& spec);

}  // namespace shardrun::job
