#pragma once

#include <string>
#include <vector>

namespace shardrun::submit {

/**
 * Runs `sbatch ARGS...` (found on PATH) and returns the job id it prints (--parsable).
 * sbatch's own stderr goes to ours.
 * @throws Error naming the command when sbatch is missing, fails or prints no id
 */
std::string sbatch(const std::vector<std::string>& args);

}  // namespace shardrun::submit
