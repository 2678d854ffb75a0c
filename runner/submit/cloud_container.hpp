#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/** MiB of memory asked per MPI rank in the cloud job files without GPUs or --memory (submit_resources.hpp). */
inline constexpr long memory_mib_per_rank = 2048;

/** The entrypoint as the image installs it (Dockerfile): what a bucket-output job runs. */
inline constexpr const char* image_entrypoint = "shardrun-entrypoint";

/** The entrypoint's copy in the submission folder: <dir>/entrypoint. */
std::string entrypoint_path(const SubmitFiles& files);

/**
 * The container's command. Local output (a file system every container mounts at the same
 * path): bash <dir>/entrypoint <dir>/job.yaml [--job-dir ... --set ...]. Bucket output:
 * shardrun-entrypoint <output URL>.submit/<target>/job.yaml [--set ...], the image's entrypoint,
 * which downloads the job's folder and the workdir first: no path of the submitting machine.
 */
std::vector<std::string> container_command(const SubmitFiles& files);

/** The merge job's command (AWS Batch): the entrypoint with --merge. */
std::vector<std::string> merge_command(const SubmitFiles& files);

/**
 * The variables the entrypoint reads (SHARDRUN_RANKS_PER_NODE, _WORKDIR, _OUTPUT, _BIN, and
 * _HOSTS_DIR when `multinode`), in a stable order. With a bucket output, _OUTPUT is the URL and
 * _WORKDIR the uploaded workdir's URL (left out without --workdir).
 */
std::vector<std::pair<std::string, std::string>> container_environment(const SubmitOptions& options,
                                                                        const SubmitFiles& files, bool multinode);

/**
 * How the elements of an array job end up merged (entrypoint, "Merge on the cloud"):
 * SHARDRUN_MERGE = `mode` (after-array: AWS Batch's merge job; last-task: Google Cloud Batch) and
 * SHARDRUN_ATTEMPTS = `attempts` (the service's attempts of one element). Nothing for one element.
 */
std::vector<std::pair<std::string, std::string>> merge_environment(const SubmitOptions& options, const std::string& mode,
                                                                    long attempts);

/** Writes the entrypoint (embedded in shardrun at build time) to entrypoint_path(), mode 0755. */
void write_entrypoint(const SubmitFiles& files);

/** The text of scripts/aws-batch/entrypoint, embedded at build time. */
const std::string& entrypoint_text();

}  // namespace shardrun::submit
