#pragma once

#include "collectives/communicator.hpp"
#include "runner/run/setup/output_place.hpp"
#include "runner/run/setup/prepared_job.hpp"

namespace shardrun::run {

/**
 * --resume of an output written by an earlier version of this job file whose sweep has since
 * gained values or points: keeps the old task ids and appends the new points
 * (job/extended_sweep.hpp), replacing job.spec.sweep and job.space and setting
 * job.earlier_jobs. Also for a later resume of such an extended output. Collective over
 * `world`; rank 0 reads the output. Before the output is prepared: nothing is written.
 * @throws JobFileError naming the first key that differs with its old and new values, when the
 *         change is anything but added sweep values; UsageError for layout single or array jobs
 */
void extend_for_resume(collectives::Communicator& world, PreparedJob& job, const OutputPlace& place, int array_index,
                       int array_count);

}  // namespace shardrun::run
