#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * Relative paths in a job file mean the job file's folder, wherever shardrun starts (a
 * scheduler's working directory is rarely the user's): data.input's file, exec.cwd, and
 * exec.argv[0] when it holds a '/' (resolved per task, after its placeholders). points_file is
 * resolved where it is read (sweep_dimensions.cpp). Values given with --set count as the job's.
 * output.path stays relative to the working directory, like a command's output.
 */
/** The job file's folder, absolute; `given` (--job-dir), made absolute, instead when not empty. */
std::string job_dir_of(const std::string& job_file, const std::string& given = {});

/**
 * Makes spec.data.input's file absolute, sets spec.exec.base_dir and reads exec.cwd (default:
 * the job file's folder), which must be an existing folder.
 * @param exec  the job's exec: node (may be undefined)
 */
void resolve_job_paths(const YAML::Node& exec, const YamlContext& context, const std::string& job_dir, JobSpec& spec);

}  // namespace shardrun::job
