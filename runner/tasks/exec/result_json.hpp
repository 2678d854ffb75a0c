#pragma once

#include <string>
#include <string_view>
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

/**
 * The same conversion from the file's text; read_result_json calls it after its size check.
 * @return the values, or a one-line reason the text is unusable
 */
std::variant<io::TaskValues, std::string> parse_result_json(std::string_view text,
                                                            const std::vector<io::FieldSpec>& fields);

}  // namespace shardrun::tasks
