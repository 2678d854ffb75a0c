#pragma once

#include <cstdint>
#include <string>

#include "runner/job/job_sections.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * Stage 3 of reading a job (job_parser.cpp): the checks that need more than one section, on
 * what the sections read (JobRead), each failure at the file:line:col its marks keep. Also
 * derives what follows from several sections: params.chunk from data.chunk, slots_per_rank
 * from tasks_per_gpu, absolute paths, and the extents of result dimensions.
 * @param given_job_dir  --job-dir, or empty: the folder relative paths in the job mean (job_dir_of())
 * @throws JobFileError "file:line:col: field: what is wrong; what is allowed"
 */
void check_across(JobRead& job, const YamlContext& context, const std::string& given_job_dir);

// The parts of check_across, in its order, in the files named.

/** A parameter both fixed (params:) and swept, at the sweep axis that names it (job_checks.cpp). */
void check_fixed_or_swept(const JobSpec& spec);
/** Two parameters whose exec environment names collide (`a-b`, `a_b`: SHARDRUN_PARAM_A_B) (job_checks.cpp). */
void check_param_names(const JobRead& job, const YamlContext& context);
/** auto_device against device and exec.mode, and its rule against the job's parameters (gpu_checks.cpp). */
void check_auto_device(const JobRead& job, const YamlContext& context);
/** GPU sharing against device, gpus_per_task, gpus_per_rank, slots_per_rank and exec.mode; sets the slots (gpu_checks.cpp). */
void check_gpu_sharing(const JobRead& job, const YamlContext& context);
/** The settings that follow from others, set in one step after every check (tasks_per_gpu -> slots_per_rank). */
void derive_settings(JobSpec& spec);
/** Every {name} in exec.argv and exec.env is a parameter or built-in, fixed per rank under a worker (exec_checks.cpp). */
void check_exec_templates(const JobRead& job, const YamlContext& context);
/** data.input's file and exec.cwd made absolute (job_paths.hpp); exec.cwd must be a folder (job_paths.cpp). */
void resolve_job_paths(JobRead& job, const YamlContext& context, const std::string& given_job_dir);
/** Result fields declared [dtype, rows, ...] get the extent data.chunk, which they need (param_shapes.cpp). */
void resolve_item_rows(JobRead& job, const YamlContext& context);
/** Result dimensions "{name}" get the parameter's largest value, at most 1 GiB per task (param_shapes.cpp). */
void resolve_param_shapes(JobRead& job, const YamlContext& context);

/**
 * The number of tasks, sweep points x data chunks, or JobFileError naming `where` when it
 * does not fit 64 bits. @param chunk  items per chunk (>= 1)
 */
std::uint64_t checked_task_count(std::uint64_t points, bool has_data, std::uint64_t items, std::uint64_t chunk,
                                 const std::string& where);

}  // namespace shardrun::job
