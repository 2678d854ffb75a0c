#pragma once

#include <string>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * run.sbatch: one array element per Slurm array task. Checks that srun has the pmix plugin,
 * resumes when requeued or when the element's shard folder exists, and on SIGUSR1 (sent to
 * the batch shell the lead, 120 s by default, before the time limit, or up to 60 s earlier:
 * Slurm's resolution) drains the step and requeues itself.
 */
std::string slurm_run_script(const SubmitOptions& options, const SubmitFiles& files);

/** merge.sbatch: `shardrun merge <output>`, run after every element ended (afterany). */
std::string slurm_merge_script(const SubmitOptions& options, const SubmitFiles& files);

/** The Slurm job id in `sbatch --parsable` output ("1234" or "1234;cluster"). @throws Error when none */
std::string parse_sbatch_id(const std::string& output);

}  // namespace shardrun::submit
