#pragma once

#include <string>
#include <vector>

#include "runner/job/job_spec.hpp"

namespace shardrun::job {

/**
 * Reads and validates a job file.
 * @param file  YAML (or JSON) job file
 * @param overrides  "key.path=value" strings from --set; the value is parsed as YAML
 * @param known_tasks  the task kinds `task:` may name
 * @throws JobFileError "file:line:col: field: what is wrong; what is allowed"
 */
JobSpec load_job(const std::string& file, const std::vector<std::string>& overrides,
                 const std::vector<std::string>& known_tasks);

/** The same, from text already in memory (tests). */
JobSpec parse_job(const std::string& file, const std::string& text, const std::vector<std::string>& overrides,
                  const std::vector<std::string>& known_tasks);

}  // namespace shardrun::job
