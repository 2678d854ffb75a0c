#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * Stage 1 of reading a job (job_parser.cpp): the job file's one YAML document with --set
 * applied, its shape checked in one walk. Its nodes keep their file:line:col; `context` names
 * them in messages ("--set params.n" for a value from the command line).
 */
struct JobTree {
    YAML::Node root;  ///< a mapping
    YamlContext context;
    nlohmann::ordered_json identity;  ///< task, params, sweep, data and exec as JSON (check_tree())
};

/**
 * parse_yaml(), apply_overrides(), then check_tree() with `top_level_keys`.
 * @throws JobFileError "file:line:col: field: what is wrong; what is allowed"; UsageError for a bad --set
 */
JobTree read_tree(const std::string& file, const std::string& text, const std::vector<std::string>& overrides,
                  const std::vector<std::string>& top_level_keys);

}  // namespace shardrun::job
