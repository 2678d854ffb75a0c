#pragma once

#include <string>

namespace shardrun::job {

/*
 * Relative paths in a job file mean the job file's folder, wherever shardrun starts (a
 * scheduler's working directory is rarely the user's): data.input's file, exec.cwd, and
 * exec.argv[0] when it holds a '/' (resolved per task, after its placeholders). points_file is
 * resolved where it is read (sweep_dimensions.cpp). Values given with --set count as the job's.
 * output.path stays relative to the working directory, like a command's output.
 * resolve_job_paths() (job_checks.hpp) applies this to a job being read.
 */

/** The job file's folder, absolute; `given` (--job-dir), made absolute, instead when not empty. */
std::string job_dir_of(const std::string& job_file, const std::string& given = {});

}  // namespace shardrun::job
