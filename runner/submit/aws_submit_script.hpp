#pragma once

#include <string>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * The text of <dir>/submit.sh: registers the array and merge job definitions, submits the array
 * job, reads its jobId, and submits the merge job with `--depends-on jobId=<it>` (a plain
 * dependency on an array job waits for every element; N_TO_N would pair elements). Usage:
 * `bash submit.sh [QUEUE]` (default queue shardrun); $SHARDRUN_AWS is the aws command with its options
 * (default aws).
 * It finds its JSON files next to itself, so it names no path of the submitting machine.
 */
std::string aws_submit_script(const SubmitOptions& options, const SubmitFiles& files);

}  // namespace shardrun::submit
