#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "io/result_sink.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/run/loop/progress.hpp"
#include "runner/run/loop/rank_loop.hpp"
#include "runner/run/loop/work_source.hpp"
#include "runner/run/rank_stats.hpp"

namespace shardrun::run {

/**
 * @internal Shared by the slots of one rank: the work source, the sink and the counts. Every
 * call is thread-safe; finish() commits in batches (every commit_interval_seconds or 4096 tasks).
 */
class LoopState {
public:
    LoopState(const LoopSettings& settings, WorkSource& source, io::ResultSink& sink, ProgressFeed& feed);

    /** The next id to run, skipping ids committed earlier; nullopt when done or stopping. */
    std::optional<std::uint64_t> next_id();

    /** Counts a finished task and records it in the sink; `interrupted`: a pending row, which --resume reruns. */
    void finish(const io::TaskRecord& record, const tasks::TaskOutcome& outcome, bool interrupted);

    /**
     * Leaves task `id` unrecorded for another rank to run (its GPU failed it: a device fault),
     * as RankStats::given_back.
     */
    void give_back(std::uint64_t id);

    /** Commits what finished so far, from outside the slots (a stop's flush). */
    void commit_finished();

    RankStats& stats() { return stats_; }

private:
    using Clock = std::chrono::steady_clock;
    void commit();  // with mutex_ held
    void give_back_rest();  // with mutex_ held: the rest of the batch (and of a static share)

    const LoopSettings& settings_;
    WorkSource& source_;
    io::ResultSink& sink_;
    ProgressFeed& feed_;
    std::mutex mutex_;
    std::unordered_map<std::uint64_t, std::int64_t> expected_spend_;  ///< running tasks' (SpendBudget), by id
    placement::IdBatch batch_{};
    std::uint64_t k_ = 0;
    RankStats stats_;
    std::uint64_t uncommitted_ = 0;
    unsigned since_clock_ = 0;
    Clock::time_point last_commit_ = Clock::now();
};

}  // namespace shardrun::run
