#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/** Stage 2 of reading a job (job_parser.cpp): the sections, each read once from the checked tree. */

/** Every top-level key a job file may hold: the keys the section readers below take. */
extern const std::vector<std::string> top_level_keys;

/** The top-level keys read_gpu_sharing takes. */
inline constexpr const char* gpu_sharing_keys[] = {"tasks_per_gpu", "gpu_sharing", "gpu_threads", "gpu_memory"};

/**
 * Where the sections found the values the checks across sections (job_checks.hpp) point at,
 * so they name the same file:line:col without the tree: by path ("params.n", "exec.argv[0]",
 * "exec.results.loss[1]"); `keys` holds a key's own mark ("exec.results.loss"). A null mark: the
 * section is absent.
 */
struct FieldMarks {
    std::map<std::string, YAML::Mark> values;
    std::map<std::string, YAML::Mark> keys;

    /** values[path], or a null mark. */
    YAML::Mark value(const std::string& path) const
    {
        const auto it = values.find(path);
        return it != values.end() ? it->second : YAML::Mark::null_mark();
    }
};

/** What the sections read: the spec so far, the marks for later checks, a points file's contents. */
struct JobRead {
    JobSpec spec;
    FieldMarks marks;
    std::optional<YAML::Node> points_file;  ///< sweep.points_file as loaded, for resolved_json()
};

/**
 * Reads every section of `root` (after check_tree()) in the file's reading order, each from its
 * own keys: name and task, params, sweep, data, execution, failures, output, exec, gpu fields,
 * gpu sharing.
 * @param job_dir  the folder points_file: is relative to
 * @throws JobFileError at the first field that is wrong on its own or within its section
 */
JobRead read_sections(const YAML::Node& root, const YamlContext& context, const std::vector<std::string>& known_tasks,
                      const std::string& job_dir);

// One reader per section or group of keys (task_sections.cpp, task_space_sections.cpp, run_settings_section.cpp,
// exec_program_section.cpp, gpu_sections.cpp).

/** `name:` (default: the file's stem) and `task:`, one of `known_tasks`. */
void read_identity(const YAML::Node& root, const YamlContext& context, const std::vector<std::string>& known_tasks,
                   JobRead& job);
/** `params:`, a mapping of scalars; records spec.sites for the kind's checks. */
void read_params(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** `sweep:` (sweep.hpp), keeping a points file's contents. */
void read_sweep(const YAML::Node& root, const YamlContext& context, const std::string& job_dir, JobRead& job);
/** `data:`, items/chunk or input/chunk. */
void read_data(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** schedule, device, gpus_per_task, gpus_per_rank, slots_per_rank, retries and the timeouts. */
void read_execution(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** `max_failures: N` (N >= 1; absent: no limit) and `fail_fast: true | false | K` (K >= 1; true is 5). */
void read_failure_fields(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** `output:`, path (default results/<name>.h5) and layout. */
void read_output(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** `notify:`, {command, url, on, timeout}: command or url required, `on` a list of end, fail, drain. */
void read_notify(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** `exec:`, required when task is exec and refused otherwise; exec.cwd as written (job_paths.hpp resolves it). */
void read_exec(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** telemetry_interval, gpu_fault_limit and auto_device (its rule is checked across sections). */
void read_gpu_fields(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** `price:` ({gpu_hour, node_hour} or {machine}) and `budget:` (dollars or kWh; dollars need a price). */
void read_cost_fields(const YAML::Node& root, const YamlContext& context, JobRead& job);
/** tasks_per_gpu, gpu_sharing, gpu_threads, gpu_memory (checked against the rest across sections). */
void read_gpu_sharing(const YAML::Node& root, const YamlContext& context, JobRead& job);

}  // namespace shardrun::job
