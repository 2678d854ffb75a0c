#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>

namespace shardrun::job {

/** The top-level keys whose values decide a job's task ids and their results, in resolved_json()'s order. */
inline const std::array<std::string, 5> identity_sections = {"task", "params", "sweep", "data", "exec"};

/** A scalar as JSON, typed as a parameter value (scalar_value()). */
nlohmann::ordered_json scalar_json(const YAML::Node& node);

/** `node` as JSON: mappings keep their key order, scalars are typed (scalar_json()). */
nlohmann::ordered_json to_json(const YAML::Node& node);

/**
 * Canonical JSON (keys in file order, since axis order decides task ids; typed scalars) of the
 * parts of a job that decide its task ids and their results: task, params, sweep, data and exec.
 * Two runs with equal text here are the same job for --resume; name, output, schedule, retries
 * and timeouts may differ.
 * @param identity  those sections as check_tree() built them
 * @param points_file  the contents of sweep.points_file, which stand for its name (a points
 *                     file's contents are part of the job's identity); nullopt when none
 */
std::string resolved_json(nlohmann::ordered_json identity, const std::optional<YAML::Node>& points_file);

}  // namespace shardrun::job
