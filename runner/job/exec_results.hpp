#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/** `true` or `false` (YAML's core spellings: true, True, TRUE) at `path`. */
bool read_bool(const YAML::Node& node, const YamlContext& context, const std::string& path);

/**
 * Gives every exec result field declared [dtype, rows, ...] its extent data.chunk. `rows`
 * needs `data:`; a task (or a worker's answer) then gives its range's end - start rows.
 * @param exec  the job file's `exec:` node, for the error's file:line:col
 */
void resolve_item_rows(const YAML::Node& exec, const YamlContext& context, JobSpec& spec);

}  // namespace shardrun::job
