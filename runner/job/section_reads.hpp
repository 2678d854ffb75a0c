#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

// The scalar readers of the job's sections (job_sections.hpp): each returns the value at
// `path` or throws JobFileError "file:line:col: path: what is wrong; what is allowed".

/** A non-empty string. */
std::string read_string(const YAML::Node& node, const YamlContext& context, const std::string& path);

/** One of `allowed`, with the closest one suggested when it is not. */
std::string read_choice(const YAML::Node& node, const YamlContext& context, const std::string& path,
                        const std::vector<std::string>& allowed);
/** One of the words job_fields.hpp allows for the choice field `path`. */
std::string read_choice(const YAML::Node& node, const YamlContext& context, const std::string& path);

/** A duration in seconds: 90, 30s, 10m, 2h, 1h30m. */
double read_duration(const YAML::Node& node, const YamlContext& context, const std::string& path);

/** An int in [minimum, INT_MAX]. */
int read_int(const YAML::Node& node, const YamlContext& context, const std::string& path, int minimum);
/** An int in [the minimum job_fields.hpp gives the integer field `path`, INT_MAX]. */
int read_int(const YAML::Node& node, const YamlContext& context, const std::string& path);

/** An integer >= minimum; 1e9 (a float in YAML) counts when it is whole. */
std::int64_t read_integer(const YAML::Node& node, const YamlContext& context, const std::string& path,
                          std::int64_t minimum);
/** An integer >= the minimum job_fields.hpp gives the field `path`. */
std::int64_t read_integer(const YAML::Node& node, const YamlContext& context, const std::string& path);

/** `true` or `false` (YAML's core spellings: true, True, TRUE). */
bool read_bool(const YAML::Node& node, const YamlContext& context, const std::string& path);

}  // namespace shardrun::job
