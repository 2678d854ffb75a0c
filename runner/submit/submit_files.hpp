#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runner/job/job_spec.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * Where a submission's files go and what its scripts run, all as absolute paths: the
 * scripts run on other machines, later, from another working directory.
 */
struct SubmitFiles {
    std::string job_name;
    std::filesystem::path workdir;  ///< the working directory of `submit`; every script cd's here first
    std::filesystem::path output;   ///< output.path of the job, absolute
    std::filesystem::path dir;      ///< <output>.submit/<target>/
    std::filesystem::path job;      ///< <dir>/job.yaml, the copy the queued run reads
    std::string shardrun;           ///< the shardrun the scripts start
    /** What follows `shardrun run <job>`: the --set overrides, unchanged, then the copied points file. */
    std::vector<std::string> run_args;
    /** The job's drain_timeout: a Slurm element is told to drain this long (and a margin) before its time limit. */
    double drain_timeout_seconds = 0;

    // A cloud target with output in object storage (output.path s3://, gs://, rclone://): the
    // containers share nothing but the bucket. `output` is then the URL, `dir` a local folder
    // <current dir>/<output name>.submit/<target>/, uploaded as `remote_dir`, and the container
    // command names no path of this machine (cloud_container.hpp).
    std::string remote_dir;      ///< <output URL>.submit/<target>; empty: the output is a local path
    std::string remote_workdir;  ///< <output URL>.submit/workdir, where --workdir goes; empty: none
    std::filesystem::path upload_workdir;  ///< --workdir, absolute; empty: none

    /** The files written under their staged names (path + staged_suffix), to move in place with publish_staged(). */
    std::vector<std::filesystem::path> staged;
};

/** What a staged file's name ends with, beside the file it replaces once the job is accepted. */
inline constexpr std::string_view staged_suffix = ".new";

/** True for the outputs the cloud containers reach through rclone: s3://, gs://, gcs://, rclone://. */
bool is_remote_url(const std::string& path);

/**
 * Works out the paths of a submission (writes nothing).
 * @param spec  the validated job, overrides applied
 */
SubmitFiles plan_files(const SubmitOptions& options, const job::JobSpec& spec);

/**
 * Creates <dir> and copies the job file there as job.yaml (its text, unchanged), and the
 * sweep's points_file next to it when it names one, so later edits do not change a queued run.
 * `staged`: under their staged names (write_staged_file), for the target to publish or discard.
 */
void write_job_copy(SubmitFiles& files, const job::JobSpec& spec, const SubmitOptions& options, bool staged = false);

/** Writes `text` as path + staged_suffix and adds `path` to files.staged. @throws Error on failure */
void write_staged_file(SubmitFiles& files, const std::filesystem::path& path, const std::string& text,
                       bool executable = false);

/** Moves every staged file onto its name (the scheduler took the job). @throws Error naming the first that failed */
void publish_staged(const SubmitFiles& files);

/** Removes the staged files (the scheduler refused the job): what was there before stays as it was. */
void discard_staged(const SubmitFiles& files) noexcept;

/** Writes `text` to `path` (replacing it); mode 0755 when `executable`. @throws Error on failure */
void write_text_file(const std::filesystem::path& path, const std::string& text, bool executable = false);

/** `text` quoted for bash when it needs it: plain words stay as they are, others go in '...'. */
std::string shell_quote(std::string_view text);

/** `words` quoted and joined with spaces. */
std::string shell_join(const std::vector<std::string>& words);

/** `name` reduced to [A-Za-z0-9_-] (others become '-'), at most `max` characters, never empty. */
std::string safe_name(std::string_view name, std::size_t max);

}  // namespace shardrun::submit
