#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string_view>

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
 * The first quoted scalar (key or value) of `root` whose closing quote is missing from `text`,
 * the source it was loaded from. yaml-cpp lets such a string run to the end of the file, so
 * `label: "b` followed by `retries: 2` would silently become one string.
 */
std::optional<YAML::Mark> unclosed_quote(const YAML::Node& root, std::string_view text);

/** Refuses a parameter that is both fixed (params:) and swept, at the sweep axis that names it. */
void check_fixed_or_swept(const JobSpec& spec);

/** Records where params:, data: and task: were written (JobSpec::sites), for checks after parsing. */
void record_sites(const YAML::Node& root, const YamlContext& context, JobSpec& spec);

/**
 * The number of tasks, sweep points x data chunks, or JobFileError naming `where` when it
 * does not fit 64 bits. @param chunk  items per chunk (>= 1)
 */
std::uint64_t checked_task_count(std::uint64_t points, bool has_data, std::uint64_t items, std::uint64_t chunk,
                                 const std::string& where);

}  // namespace shardrun::job
