#pragma once

#include <string>
#include <vector>

#include "runner/env/run_environment.hpp"

namespace shardrun::env {

/** The human table of `shardrun info`. */
std::string info_table(const RunEnvironment& environment, const std::vector<RankRow>& rows);

/** The same facts as one JSON object (and a trailing newline). */
std::string info_json(const RunEnvironment& environment, const std::vector<RankRow>& rows);

}  // namespace shardrun::env
