#pragma once

#include <string>
#include <vector>

#include "runner/job/sweep.hpp"

namespace shardrun::job {

/**
 * The sweep of a job extended over several --resume runs, as one axis whose point ids stay
 * stable: ids 0..T0-1 are the first job's points in its cartesian order; each later job then
 * appends the points it added (those of its own product that no earlier job had, compared by
 * value), in its own cartesian order.
 * @param jobs  resolved_json() of each job, oldest first; each only extends the one before
 *              (job_change() said so)
 * @param file  the job file, for messages
 * @throws JobFileError when a job's points cannot all be matched by value in the next one
 */
Sweep extended_sweep(const std::vector<std::string>& jobs, const std::string& file);

/** The sweep of a job's resolved_json(); a points_file's contents (inlined there) read as points:. */
Sweep resolved_sweep(const std::string& resolved, const std::string& file);

}  // namespace shardrun::job
