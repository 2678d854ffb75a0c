#pragma once

#include <string>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::run {

/**
 * `shardrun run JOB --task ID`: one line of JSON for a finished task, {"task_id", "status",
 * "attempts", "exit_code", "message" (when not ok), "results": {field: value}}, each declared
 * field decoded from the bytes the output stores (arrays as nested lists; NaN and ±inf, which
 * JSON lacks, as the strings "nan", "inf" and "-inf").
 */
std::string echo_json(const io::TaskRecord& record, const io::TaskValues& values, const std::vector<io::FieldSpec>& fields);

}  // namespace shardrun::run
