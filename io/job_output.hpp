#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/communicator.hpp"
#include "io/errors.hpp"
#include "io/gpu_check_row.hpp"
#include "io/output_spec.hpp"
#include "io/read/status_report.hpp"
#include "io/result_sink.hpp"
#include "io/result_types.hpp"

/**
 * @file
 * What the runner calls to write a job's results (see io/README.md for the file layout):
 *
 *     rank 0:     auto lock = prepare_output(options, metadata);        // OutputError -> exit 2
 *     rank 0:     auto done = committed_tasks(options, metadata);       // resume; broadcast it
 *     every rank: auto sink = open_rank_sink(options, metadata, fields, world);  // the run's Communicator
 *                 sink->record(...); sink->commit(); ... sink.reset();  // collective for single
 *     rank 0:     finalize_output(options, metadata, fields, params, size);
 *
 * `shardrun merge` calls merge_output() and `shardrun status` calls status_report()
 * (io/read/status_report.hpp). The words these share with the rest of io (OutputOptions,
 * JobMetadata, ParamColumn, TaskRanges, the job hash) are in io/output_spec.hpp, which has no
 * MPI type: a module that needs only them includes that, not this facade. Neither has this one:
 * the run's communicator comes as a base::Communicator (base/communicator.hpp).
 */
namespace shardrun::io {

/** Holds the output's lock (flock) until destroyed or the process exits. Move-only. */
class OutputLock {
public:
    OutputLock() = default;
    explicit OutputLock(int fd) : fd_(fd) {}
    OutputLock(OutputLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    OutputLock& operator=(OutputLock&& other) noexcept;
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;
    ~OutputLock();
    bool held() const noexcept { return fd_ >= 0; }
    /** The lock file's descriptor (-1 when not held); its text names the holder. */
    int fd() const noexcept { return fd_; }

private:
    int fd_ = -1;
};

/**
 * Rank 0, before any task runs: checks the output directory is writable, takes the lock
 * of this array element (<path>.shards/a<index>.lock), refuses an existing output unless
 * resume (same job hash) or force (deletes this element's shards and <path>), and records
 * the element's manifest.
 * @throws OutputError  one line naming the path and what to do
 */
OutputLock prepare_output(const OutputOptions& options, const JobMetadata& metadata);

/**
 * prepare_output() in its two steps, for a caller that acts while it holds the lock when the
 * second fails (the runner keeps why in the lock file: io/layout/run_end_reason.hpp).
 * lock_output(): the checks that come before anything is created, the folders, the lock.
 * @throws OutputError  (nothing is held then)
 */
OutputLock lock_output(const OutputOptions& options, const JobMetadata& metadata);

/**
 * The rest, under `lock`: an existing output refused, resumed or deleted (force), the holder
 * named in the lock file, the element's manifest written.
 * @throws OutputError; WriteError when the disk is full (the lock is still held)
 */
void prepare_locked_output(const OutputOptions& options, const JobMetadata& metadata, const OutputLock& lock);

/**
 * Rank 0, on resume: the ids in [first_task, end_task) whose status is ok in committed
 * batches of this array element, sorted. Every segment is read whole and its checksums
 * verified; a truncated or corrupt one is reported on stderr and renamed <seg>.invalid,
 * and its tasks run again: nothing unverified is used.
 */
std::vector<std::uint64_t> committed_tasks(const OutputOptions& options, const JobMetadata& metadata);

/** Task ids [first, end). */
struct IdRun {
    std::uint64_t first = 0;
    std::uint64_t end = 0;
};

/**
 * A task not committed ok whose earlier runs made attempts (it failed, or a drain interrupted
 * it): the next run numbers its attempts after them, so SHARDRUN_ATTEMPT, a worker's `attempt`
 * and /attempts agree however the task runs (issue 35, point 3).
 */
struct EarlierAttempts {
    std::uint64_t task_id = 0;
    std::int32_t attempts = 0;
};

/** What the earlier runs of a job spent, summed over every row they recorded (ok, failed, interrupted). */
struct EarlierSpend {
    double usd = 0;      ///< /tasks/cost_usd
    double joules = 0;   ///< /tasks/energy_j
    std::uint64_t tasks = 0;  ///< rows with either: what a mean per task is taken over
};

/**
 * committed_tasks() as sorted, disjoint runs of ids, read in memory that does not grow with
 * the task count: what the runner broadcasts; `earlier` (when given) gets the attempt counts of
 * the tasks that are not ok (one entry each). When <path> is a complete master of this job
 * with every task ok, written from exactly the segments there are now (same names, inodes,
 * sizes and times: nothing was added, removed or rewritten since), that is one run read from
 * its attributes, no row read; otherwise every segment is read and verified as above.
 */
std::vector<IdRun> committed_runs(const OutputOptions& options, const JobMetadata& metadata,
                                  std::vector<EarlierAttempts>* earlier = nullptr, EarlierSpend* spend = nullptr);

/**
 * Every rank: the sink its finished tasks go to, as rank comm.rank() of the run. layout shards:
 * this rank's segments in <path>.shards/a<index>/r<rank>/, committed by write-then-rename.
 * layout single: one preallocated file written through MPI-IO by all ranks; opening, commit()
 * and destroying the sink are collective over `comm`, every rank of the run (a rank with
 * nothing to write still calls them), which must then be an MPI communicator and outlive the sink.
 * record() throws ResultShapeError for values that do not match `fields`, storing nothing.
 */
std::unique_ptr<ResultSink> open_rank_sink(const OutputOptions& options, const JobMetadata& metadata,
                                           const std::vector<FieldSpec>& fields, base::Communicator& comm);

/**
 * The same as rank `rank` of `world_size` without a communicator: layout shards only, for
 * tests and tools that write the shards of ranks they stand in for.
 * @throws std::invalid_argument for layout single (it is written collectively)
 */
std::unique_ptr<ResultSink> open_rank_sink(const OutputOptions& options, const JobMetadata& metadata,
                                           const std::vector<FieldSpec>& fields, int rank, int world_size);

/** Counts of the tasks of the written output. */
struct OutputSummary {
    std::uint64_t ok = 0, failed = 0, skipped = 0, pending = 0;
    /** Every task has a final status: of the whole job after finalize with array_count == 1
     *  or after merge; of this array element after finalize of one element of several. */
    bool complete = false;
    bool master_written = false;  ///< false for one element of a larger array (use merge)
    std::string master_path;
    /** The master's write alone (segments read, the file written and renamed), and its size: the
     *  rest of finalize_output is the element's consolidation (the run's end, README). */
    double master_seconds = 0;
    std::uint64_t master_bytes = 0;
};

class ParamSource;  // io/param_source.hpp

/**
 * Rank 0, after every rank committed and destroyed its sink: marks this array element
 * finished and, when array_count == 1, writes the master file <path> (temp name, then
 * rename) with /tasks, /params, /ranges and /results consolidated from the shards. When
 * that master is complete, the segments are removed (io/output/consolidation.hpp), unless keep_shards.
 * @param params  one column per sweep parameter and the data ranges, if any, of every task,
 *                read a block at a time (memory does not grow with T)
 * @param rank_startup_seconds  per rank, its exec workers' load: the manifest keeps it and
 *                the master's /ranks shows it (empty: none recorded)
 * @param gpus  the GPUs' admission checks (issue 38): the manifest keeps them, the master's /gpus shows them
 */
OutputSummary finalize_output(const OutputOptions& options, const JobMetadata& metadata,
                              const std::vector<FieldSpec>& fields, const ParamSource& params, int world_size,
                              const std::vector<double>& rank_startup_seconds = {},
                              const std::vector<std::string>& quarantined = {},
                              const std::vector<GpuCheckRow>& gpus = {});

/**
 * Rank 0, when a run ends in order without finishing (a drain or stop, exit 3 or 4): marks the
 * element's manifest `stopped`, so that `status` and the next run do not take it for a killed one.
 */
void record_stopped_run(const OutputOptions& options, const JobMetadata& metadata);

/**
 * Rank 0, once prepare_output() has the lock: writes <path>.shards/a<index>/params.h5 (the
 * /params and /ranges of the whole job, temp name then rename), so that `table`, `export`
 * and `report` label the rows of the running job (io/read/live_snapshot.hpp). Nothing for a
 * consolidated element: its master holds them (results are stored once).
 */
void publish_params(const OutputOptions& options, const JobMetadata& metadata, const ParamSource& params);

/** finalize_output() of columns held whole in memory (tests, benchmarks): T values each. */
OutputSummary finalize_output(const OutputOptions& options, const JobMetadata& metadata,
                              const std::vector<FieldSpec>& fields, const std::vector<ParamColumn>& param_columns,
                              const TaskRanges& ranges, int world_size);

/** What merge_output() found. */
struct MergeReport {
    OutputSummary summary;
    int array_count = 0;
    int merged_elements = 0;               ///< elements whose rows were read (started ones)
    std::vector<int> missing_elements;     ///< never started
    std::vector<int> incomplete_elements;  ///< started but not finished (or still running)
    /** 0 when every element finished and every task has a final status, else 1. */
    int exit_code() const noexcept;
};

/**
 * Builds the master <path> over the shards of every array element found in
 * <path>.shards/, learning T, fields and params from the elements' manifests. When the
 * master is complete (exit code 0), the elements' result files are removed
 * (io/output/consolidation.hpp); when they already were, the master is kept as it is.
 * @throws OutputError when no element has finished (nothing to learn the job from)
 */
MergeReport merge_output(const std::string& path);

}  // namespace shardrun::io
