#pragma once

#include <string>

#include "runner/job/job_spec.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * Checks the Slurm options (--account, --qos, --mem, --cpus-per-task, --sbatch, --merge-partition,
 * --merge-time, --max-requeues): one word each, --mem in sbatch's form, and no --sbatch line for an
 * option shardrun writes itself (it names the option to use instead) but `signal=B:USR1@N`.
 * @throws UsageError one line
 */
void validate_slurm_options(const SubmitOptions& options);

/** The #SBATCH lines of run.sbatch from those options: account, qos, mem, cpus-per-task, then each --sbatch but signal. */
std::string slurm_run_option_lines(const SubmitOptions& options);

/** Seconds between the drain's SIGUSR1 and the time limit by default: the job's drain_timeout plus this. */
inline constexpr long usr1_margin_seconds = 30;

/**
 * How long before the time limit the batch shell gets SIGUSR1 (`#SBATCH --signal=B:USR1@<lead>`):
 * `--sbatch signal=B:USR1@N` when given, else the job's drain_timeout (rounded up) plus
 * usr1_margin_seconds, so the drain has its whole drain_timeout and the flush its margin.
 */
long usr1_lead_seconds(const SubmitOptions& options, double drain_timeout_seconds);

/**
 * The checks that need the job: a lead of the user's no longer than drain_timeout, and a
 * --time no longer than the lead (the element would be told to drain as it starts), are
 * exit 2 naming both figures.
 */
void check_slurm_job(const SubmitOptions& options, const job::JobSpec& spec);

/**
 * The #SBATCH lines of merge.sbatch: its own partition (--merge-partition, else the cluster's
 * default: not the GPU partition) and time (--merge-time, default 1:00:00), and --account.
 */
std::string slurm_merge_option_lines(const SubmitOptions& options);

}  // namespace shardrun::submit
