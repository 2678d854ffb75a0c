#pragma once

#include <string>

/**
 * @file
 * What the run summary advises where the right step depends on how the run was started or where
 * its output is (issue 39's new-user trials): the launcher's own time limit for a run that made no
 * progress, and the bucket's troubleshooting section for an output the bucket did not get whole.
 */
namespace shardrun::run {

/**
 * "give the job more time (Slurm: --time), " for `scheduler` (env::SchedulerInfo::name): the
 * launcher's own time limit, the setting a rerun needs raised; "" where the launcher has none
 * (mpirun, none): more time is then nobody's setting.
 */
std::string more_time_advice(const std::string& scheduler);

/**
 * The line that replaces "results:" and "picture:" when the bucket did not get everything
 * (`exit_code` 3: an outage that outlasted the upload patience; 2: another run took the element):
 * what is not readable and what to do, with its docs section.
 */
std::string bucket_hint(int exit_code);

}  // namespace shardrun::run
