#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/run/run_job.hpp"

namespace shardrun::cli {

/**
 * `shardrun run JOB --task ID [--task ID...]` (MPI initialised, one process): each task run as
 * the job runs it (same environment, arguments, retries and result handling), one after the
 * other, into `output` or a fresh scratch folder; prints each task's stdout and result line,
 * and where the output is. @return the worst exit code of the tasks' runs
 */
int run_tasks_by_hand(run::RunOptions options, const std::vector<std::uint64_t>& ids, const std::string& output);

}  // namespace shardrun::cli
