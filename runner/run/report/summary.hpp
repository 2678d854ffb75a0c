#pragma once

#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "runner/run/rank_stats.hpp"
#include "runner/run/end_phases.hpp"

namespace shardrun::run {

/** Every rank's stats on rank 0 (empty elsewhere). Collective over `world`. */
std::vector<RankStats> gather_stats(collectives::Communicator& world, const RankStats& mine);

/** The whole run, for the summary. */
struct RunTotals {
    std::string job_name;
    std::uint64_t tasks = 0;     ///< tasks of this array element
    double wall_seconds = 0;
    bool interrupted = false;
    std::string output_path;
    long array_index = 0;  ///< this run's element of the array job (zero-based)
    /** Set when the run gave up on its failures (max_failures, fail_fast): why, in one sentence. */
    std::string stop_reason;
    long array_count = 1;  ///< more than 1: the run is one element; its results wait for `shardrun merge`
    /** An element's run: the merged output_path exists already (an earlier merge, or a cloud array's last element). */
    bool merged_exists = false;
    /** One element's run: output_path exists (not after a stop, whose results wait for --resume). */
    bool results_written = true;
    int exit_code = 0;     ///< what shardrun exits with (README, "Exit codes")
    /** Open MPI's mpirun will print its non-zero-exit note after the summary (it was not run with -q). */
    bool launcher_banner_follows = false;
    /** stop_reason is a budget's drain, whose own sentence says how to go on (a raised budget). */
    bool budget_stop = false;
    /** A drain ended the run before any task finished in it: requeueing would repeat it (exit 4). */
    bool no_progress = false;
    /** An output in object storage that did not get everything: what is not in the bucket and why (exit 3, or 2). */
    std::string bucket_note;
    /** How the run was started (env::SchedulerInfo::name: slurm, aws-batch, gcp-batch, mpirun, ...): whose time limit to name. */
    std::string scheduler;
    /** The run's end, phase by phase, from the last task's end to MPI_Finalize's return. */
    std::vector<EndPhase> end_phases;
};

/** The human summary printed by rank 0 at the end. */
std::string format_summary(const RunTotals& totals, const std::vector<RankStats>& ranks);

/**
 * What `run -q` prints instead of the summary: why the run stopped early, when it did (its
 * failures or budget, a signal's stop or drain), in one line without the "shardrun: " prefix;
 * "" for a run that ended normally (-q loses nothing but the summary of a finished run).
 */
std::string quiet_summary_line(const RunTotals& totals, const std::vector<RankStats>& ranks);

/** The same as one JSON line ({"event":"summary",...}) for --progress=json. */
std::string summary_json(const RunTotals& totals, const std::vector<RankStats>& ranks);

}  // namespace shardrun::run
