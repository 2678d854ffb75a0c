#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>

#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * Checks the whole document before any field is read: a key repeated in one mapping (YAML
 * parsers keep the first and drop the rest silently) and a NUL character in any key or
 * value (it would cut a name or an argument short) are refused with their position.
 */
void check_document(const YAML::Node& root, const YamlContext& context);

/**
 * Refuses two parameters (fixed or swept) whose exec environment names collide: `a-b` and
 * `a_b` are both SHARDRUN_PARAM_A_B, and a task could not tell them apart.
 */
void check_param_names(const YAML::Node& root, const YamlContext& context, const JobSpec& spec);

/**
 * The number of tasks, sweep points x data chunks, or JobFileError naming `where` when it
 * does not fit 64 bits. @param chunk  items per chunk (>= 1)
 */
std::uint64_t checked_task_count(std::uint64_t points, bool has_data, std::uint64_t items, std::uint64_t chunk,
                                 const std::string& where);

}  // namespace shardrun::job
