#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * The one walk over the job's tree (after --set), before any field is read. Refuses, with
 * their position: a key repeated in one mapping (YAML parsers keep the first and drop the rest
 * silently), a NUL character in any key or value (it would cut a name or an argument short), a
 * key that is a list or mapping, and then a top-level key not in `top_level_keys` (with the
 * closest allowed one).
 * @return the parts of the job that decide its task ids (task, params, sweep, data, exec) as
 *         JSON, for resolved_json(): built in the same walk
 */
nlohmann::ordered_json check_tree(const YAML::Node& root, const YamlContext& context,
                                  const std::vector<std::string>& top_level_keys);

}  // namespace shardrun::job
