#pragma once

#include <string>

#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * Checks the Slurm options (--account, --qos, --mem, --cpus-per-task, --sbatch, --merge-partition,
 * --merge-time): one word each, --mem in sbatch's form, and no --sbatch line for an option
 * shardrun writes itself (it names the option to use instead).
 * @throws UsageError one line
 */
void validate_slurm_options(const SubmitOptions& options);

/** The #SBATCH lines of run.sbatch from those options: account, qos, mem, cpus-per-task, then each --sbatch. */
std::string slurm_run_option_lines(const SubmitOptions& options);

/**
 * The #SBATCH lines of merge.sbatch: its own partition (--merge-partition, else the cluster's
 * default: not the GPU partition) and time (--merge-time, default 1:00:00), and --account.
 */
std::string slurm_merge_option_lines(const SubmitOptions& options);

}  // namespace shardrun::submit
