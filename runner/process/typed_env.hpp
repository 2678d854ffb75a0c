#pragma once

#include <string>
#include <vector>

#include "io/result_types.hpp"
#include "runner/job/param_map.hpp"

namespace shardrun::process {

/**
 * $SHARDRUN_PARAMS: the task's parameters as one JSON object with their YAML types
 * ({"lr": 0.1, "epochs": 3, "tag": "a", "warm": true}). SHARDRUN_PARAM_<NAME> are text only;
 * this is what the Python helper's params() reads in task mode.
 */
std::string params_json(const job::ParamMap& params);

/**
 * $SHARDRUN_RESULT_FIELDS: the declared exec.results as {"name": "float32", ...}, so a helper
 * can write each array as the dtype its .npy must have (the reader takes only the declared one).
 */
std::string result_fields_json(const std::vector<io::FieldSpec>& fields);

}  // namespace shardrun::process
