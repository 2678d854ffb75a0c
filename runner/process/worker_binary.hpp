#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::process {

/**
 * True for a result value sent in binary form: {"dtype": "float32", "shape": [25, 384],
 * "base64": "<little-endian C-order bytes>"} (what scripts/shardrun_worker.py sends for NumPy
 * arrays: a tenth of the JSON text, and no float printing or parsing).
 */
bool is_binary_result(const nlohmann::json& value);

/**
 * The field's bytes from a binary result, or a one-line reason (dtype, shape or size mismatch).
 * @param field  with the shape this task delivers (a rows field: its range's rows; results/task_shapes.hpp)
 */
std::variant<std::vector<std::byte>, std::string> decode_binary_result(const nlohmann::json& value,
                                                                        const io::FieldSpec& field);

}  // namespace shardrun::process
