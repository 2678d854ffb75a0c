#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

/**
 * @file
 * The job an existing output was written by, as --resume needs it to decide whether a changed
 * job file only extends the sweep: its resolved job and the jobs it already extended.
 */
namespace shardrun::io {

struct RecordedJob {
    std::string params_json;                ///< the resolved job (task, params, sweep, data, exec)
    std::vector<std::string> earlier_jobs;  ///< the jobs it extends, oldest first
};

/**
 * The job recorded for element `array_index` of <path>: its manifest, else the master's
 * attributes; nullopt when neither exists or the master is not a shardrun file (prepare_output
 * then says so). @throws OutputError when the manifest is unreadable
 */
std::optional<RecordedJob> recorded_job(const std::string& path, int array_index);

/** The job file a run of <path> read, as it recorded it: its path then and its text (before any --set). */
struct RecordedJobFile {
    std::string path;
    std::string text;
};

/**
 * The job file recorded in any element's manifest of <path>, else in the master's attributes;
 * nullopt when neither holds one. @throws OutputError when a manifest is unreadable
 */
std::optional<RecordedJobFile> recorded_job_file(const std::string& path);

/** How many tasks the job of <path> has: any element's manifest, else the master's task_count; nullopt: neither. */
std::optional<std::uint64_t> recorded_task_count(const std::string& path);

}  // namespace shardrun::io
