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
 * @param job_dir  the folder relative paths in the job mean (job_paths.hpp); empty: the file's own.
 *                 `shardrun submit` runs a copy of the job and passes the original's folder.
 * @throws JobFileError "file:line:col: field: what is wrong; what is allowed"
 */
JobSpec load_job(const std::string& file, const std::vector<std::string>& overrides,
                 const std::vector<std::string>& known_tasks, const std::string& job_dir = {});

/** The same, from text already in memory (tests). */
JobSpec parse_job(const std::string& file, const std::string& text, const std::vector<std::string>& overrides,
                  const std::vector<std::string>& known_tasks, const std::string& job_dir = {});

}  // namespace shardrun::job
