#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/env/scheduler.hpp"
#include "runner/run/loop/progress.hpp"

namespace shardrun::run {

/** Everything `shardrun run` takes from its command line. */
struct RunOptions {
    std::string job_file;
    std::vector<std::string> overrides;  ///< --set key.path=value
    std::string job_dir;                 ///< --job-dir: what relative paths in the job mean (submit's copies)
    env::ArrayOverrides array;
    bool resume = false;
    bool force = false;
    /**
     * `run --task ID`: run this one task, on one process, as the array element ID of as many
     * elements as the job has tasks (so the output is that element's, exactly as a real run
     * writes it), printing its stdout and one JSON line with its recorded result.
     */
    std::optional<std::uint64_t> only_task;
    /**
     * Whether MPI is finalized at the end of this run (timed as the run's last phase). False
     * when another run follows in the same process (`run --task A --task B`): MPI cannot be
     * initialised twice.
     */
    bool finalize_mpi = true;
    ProgressMode progress = ProgressMode::automatic;
    double progress_interval_seconds = 10;
};

/**
 * Runs a job on every rank of the MPI world (MPI must be initialised) and returns the exit
 * code: 0 all tasks ok, 1 some failed, 3 interrupted. Bad input throws JobFileError/UsageError
 * on every rank before anything is written.
 */
int run_job(const RunOptions& options);

}  // namespace shardrun::run
