#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

/**
 * @file
 * What `shardrun status` reads and prints about an output (io/read/status_report.cpp,
 * io/read/status_format.cpp).
 */
namespace shardrun::io {

/** Counts of one rank of one array element. */
struct RankCounts {
    int array_index = 0;
    int rank = 0;
    std::uint64_t ok = 0, failed = 0, skipped = 0;
};

/** What the tasks that ran on one host add up to (`status --by-host`): a slow or failing node shows. */
struct HostCounts {
    std::string host;               ///< as /tasks/host records it ("" for rows without one)
    int ranks = 0;                  ///< distinct (element, rank) pairs whose tasks ran there
    std::uint64_t ok = 0, failed = 0;
    double busy_seconds = 0;        ///< the tasks' end - start, summed
};

/** A failed task: its reason, its logs, and the end of its stderr when the exec task kept one. */
struct FailedTask {
    std::uint64_t task_id = 0;
    int array_index = 0;
    int rank = 0;
    std::int32_t exit_code = 0;
    std::vector<std::string> stderr_tail;  ///< last lines of <path>.tasks/<id>/stderr
    std::string message;                   ///< /tasks/message: why it failed
    std::int32_t attempts = 0;
    /** The output files kept for it: <path>.tasks/<id>/{stdout,stderr}.<attempt> and member<k>/..., sorted. */
    std::vector<std::string> logs;
};

/** What `shardrun status` prints. */
struct StatusReport {
    std::string path;
    std::uint64_t task_count = 0;
    int array_count = 0;
    std::uint64_t ok = 0, failed = 0, skipped = 0, pending = 0;
    std::vector<RankCounts> ranks;
    std::vector<HostCounts> hosts;  ///< by host name
    std::vector<FailedTask> failed_tasks;
    std::vector<int> missing_elements;
    /** Missing elements the platform stopped while their ranks started (stopped_note.hpp): index, the note's line. */
    std::map<int, std::string> stopped_elements;
    std::vector<int> running_elements;      ///< lock held right now
    /** Running elements not read (layout single: its file is open in the run's writer), one reason each. */
    std::vector<std::string> unreadable;
    std::vector<int> unfinished_elements;   ///< started, not finished, not running
    /** Elements whose results are in the master only (a merge, or a one-element run, removed their files). */
    std::vector<int> consolidated_elements;
    /** Committed segments that cannot be read (file: why): their tasks count as pending. */
    std::vector<std::string> unreadable_segments;
    /** Per unfinished element, what its files say of the run that ended without a summary (unfinished_run.hpp). */
    std::vector<std::string> unfinished_runs;
    /** Elements of another job or array count than the lowest one, or beyond the count: not counted. */
    std::vector<int> mismatched_elements;
    std::vector<std::string> element_problems;  ///< why, one sentence per mismatched element
    /** GPUs quarantined by the run (issue 26), one line each: "rank 0: quarantined GPU cuda:0 (...) on host ...". */
    std::vector<std::string> quarantined;
    /** The scheduler's ids of each element's last run, one line each: "slurm SLURM_JOB_ID=4242 ..." (empty: none set). */
    std::vector<std::string> scheduler;
    /** Set when <path> exists but cannot be opened as results (then complete is false). */
    std::string master_problem;
    /** Every task committed, but <path> was never written (its run ended first): complete is false; --resume writes it. */
    bool master_missing = false;
    /** An array whose every element finished, not all merged into <path> yet: complete is false; `merge` (again) does it. */
    bool unmerged = false;
    bool complete = false;

    /** A run is writing the output now: what was read is a snapshot of what it committed so far. */
    bool running() const noexcept { return !running_elements.empty(); }
    /** Tasks with a final status (ok, failed, skipped). */
    std::uint64_t committed() const noexcept { return ok + failed + skipped; }
};

/**
 * Reads the state of an output (its shards, or the master when no shards are left).
 * @throws OutputError when neither <path> nor <path>.shards/ exists
 */
StatusReport status_report(const std::string& path, std::size_t stderr_lines = 5);

/** Whether a run is writing `path` right now (the lock of one of its array elements is held). */
bool output_running(const std::string& path);

/** A human-readable table of `report`; `by_host`: a table per host instead of per rank. */
std::string status_text(const StatusReport& report, bool by_host = false);
/** `report` as one JSON object. */
std::string status_json(const StatusReport& report);

}  // namespace shardrun::io
