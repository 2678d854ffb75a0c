#pragma once

#include <string>
#include <variant>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::tasks {

/**
 * Reads the JSON object an exec task wrote to $SHARDRUN_RESULT and converts each declared
 * field to its dtype and shape (nested lists for arrays, row-major).
 * @return the values, or a one-line reason the file is unusable
 */
std::variant<io::TaskValues, std::string> read_result_json(const std::string& path,
                                                           const std::vector<io::FieldSpec>& fields);

}  // namespace shardrun::tasks
