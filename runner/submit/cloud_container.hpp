#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/** MiB of memory asked per MPI rank in the cloud job files without GPUs or --memory (submit_resources.hpp). */
inline constexpr long memory_mib_per_rank = 2048;

/** The entrypoint's copy in the submission folder: <dir>/entrypoint. */
std::string entrypoint_path(const SubmitFiles& files);

/** The container's command: bash <dir>/entrypoint <dir>/job.yaml [--set ...]. */
std::vector<std::string> container_command(const SubmitFiles& files);

/**
 * The variables the entrypoint reads (SHARDRUN_RANKS_PER_NODE, _WORKDIR, _OUTPUT, _BIN, and
 * _HOSTS_DIR when `multinode`), in a stable order.
 */
std::vector<std::pair<std::string, std::string>> container_environment(const SubmitOptions& options,
                                                                        const SubmitFiles& files, bool multinode);

/** Writes the entrypoint (embedded in shardrun at build time) to entrypoint_path(), mode 0755. */
void write_entrypoint(const SubmitFiles& files);

/** The text of scripts/aws-batch/entrypoint, embedded at build time. */
const std::string& entrypoint_text();

}  // namespace shardrun::submit
