#pragma once

// /gpus rows (io/gpu_check_row.hpp) as JSON: the element manifest keeps them for merge and for
// a master written later, and the runner sends them between ranks the same way.
#include <nlohmann/json.hpp>

#include <vector>

#include "io/gpu_check_row.hpp"

namespace shardrun::io {

nlohmann::json gpu_checks_json(const std::vector<GpuCheckRow>& rows);
/** The rows of gpu_checks_json(); missing keys keep their defaults. */
std::vector<GpuCheckRow> gpu_checks_from_json(const nlohmann::json& rows);

}  // namespace shardrun::io
