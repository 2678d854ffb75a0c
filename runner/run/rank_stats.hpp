#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "io/result_types.hpp"
#include "io/gpu_check_row.hpp"
#include "runner/placement/placement.hpp"

namespace shardrun::run {

/** A task that failed after its last attempt. */
struct FailedTask {
    std::uint64_t task_id = 0;
    int exit_code = 0;
    std::string message;
    /** Its last stderr lines, kept for a remote output's element log (LoopSettings::failure_tail_lines). */
    std::vector<std::string> stderr_tail;
};

/** What one rank did. */
struct RankStats {
    int rank = 0;
    std::uint64_t ok = 0;
    std::uint64_t failed = 0;
    std::uint64_t already_done = 0;  ///< committed by an earlier run (--resume)
    std::uint64_t interrupted = 0;   ///< cut short by a stop; left pending for --resume
    int signal = 0;                  ///< the first stop signal this rank received, 0 if none
    bool drain_ran_out = false;      ///< this rank stopped its tasks when drain_timeout ran out
    double busy_seconds = 0;     ///< summed wall time of its tasks, the attempts a stop cut short included
    /** When its last task ended (Unix seconds; 0: none ended in this run): where the run's end is timed from. */
    double last_task_end = 0;
    /** Its loop's last commit, after its last task (layout single: the collective write of every row). */
    double final_commit_seconds = 0;
    double startup_seconds = 0;  ///< exec workers: spawn to ready line, summed over the workers it started
    /** /tasks/cpu_time summed over its measured tasks (exec, task mode), and how many were measured. */
    double cpu_seconds = 0;
    std::uint64_t measured_tasks = 0;
    std::int64_t mem_peak = -1;  ///< the largest /tasks/mem_peak of its tasks; -1: none measured
    std::vector<std::pair<double, std::uint64_t>> slowest;  ///< ok tasks (seconds, task id), longest first
    /** Interrupted tasks (seconds they ran, task id), longest first: the ones a drain could not wait for. */
    std::vector<std::pair<double, std::uint64_t>> cut_short;
    std::vector<FailedTask> failures;                       ///< first failures, capped
    /** Tasks left unrecorded for other ranks: failed by a device fault, or not begun when the GPU was quarantined. */
    std::vector<placement::IdBatch> given_back;
    /** The summary's line naming this rank's quarantined GPU and the evidence; "" when none. */
    std::string quarantine;
    /** Per scalar float result field: the ok tasks that returned NaN for it (a diverged training's loss). */
    std::map<std::string, std::uint64_t> nan_results;
    /** Its GPUs' admission checks (issue 38), the rows of the results file's /gpus; empty when none ran. */
    std::vector<io::GpuCheckRow> gpu_checks;

    /** Counts one finished task. */
    void add(std::uint64_t task_id, double seconds, bool ok, int exit_code, const std::string& message);
    /** Counts one task a stop or drain cut short after `seconds`. */
    void add_interrupted(std::uint64_t task_id, double seconds);
    /** Counts a task's /tasks/cpu_time and mem_peak (NaN and -1: not measured). */
    void add_usage(double cpu_time, std::int64_t peak);
    /** Counts the scalar float fields of an ok task's `values` that are NaN. */
    void add_nans(const io::TaskValues& values, const std::vector<io::FieldSpec>& fields);
    /** Adds a later loop's counts (tasks given back by quarantined ranks); `given_back` becomes the later's. */
    void merge(const RankStats& later);
};

}  // namespace shardrun::run
