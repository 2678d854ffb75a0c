#pragma once

#include "runner/job/job_spec.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * The cloud targets' check that the containers can see every path of this machine the job files
 * name (issue 34, point 2): with a bucket output they share only the bucket (and the uploaded
 * --workdir); with a local output, output.path, the job file's folder, the workdir and a local
 * data.input must lie under --shared-fs, the folder the containers mount at the same path.
 * Without it the files named the submitting laptop's disk, and the jobs could only fail.
 * @throws UsageError one line saying what to write instead
 */
void check_container_paths(const SubmitOptions& options, const job::JobSpec& spec);

}  // namespace shardrun::submit
