#pragma once

#include <iosfwd>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * Slurm: writes run.sbatch and merge.sbatch into files.dir; with dry_run prints both and the
 * two sbatch commands, else runs `sbatch --parsable run.sbatch` and then
 * `sbatch --parsable --dependency=afterany:<array job> merge.sbatch` and prints both ids.
 * @return the exit code (0)
 * @throws Error when sbatch cannot be run or fails
 */
int submit_slurm(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out);

/**
 * AWS Batch: writes array-job.json + array-submit.json, multinode-job.json +
 * multinode-submit.json and the entrypoint, and prints the aws commands that submit them.
 */
int submit_aws_batch(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out);

/** Google Cloud Batch: writes job.json and the entrypoint, and prints the gcloud command. */
int submit_gcp_batch(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out);

}  // namespace shardrun::submit
