#pragma once

#include <atomic>
#include <memory>

#include "collectives/claims/work_counters.hpp"
#include "collectives/communicator.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/loop/progress.hpp"
#include "runner/run/loop/rank_loop.hpp"
#include "runner/run/loop/work_source.hpp"

namespace shardrun::core {
class PeriodicThread;
}

namespace shardrun::run {

/**
 * One rank's part of a run, wired in one place: the rank groups (gpus_per_task consecutive
 * local ranks of a node) and this rank's group communicator, the work counters, the progress
 * feed and the work source of the job's schedule. run_job and the MPI tests build it the same
 * way, in the spirit of HyperQueue's TestEnv.
 */
class RankLoopSetup {
public:
    /**
     * Collective over `world`.
     * @param node  the members of world that share memory with this rank
     * @param settings  what the loop needs; rank, group and layout are filled in here
     * @param element  the ids of this array element
     * @throws UsageError when gpus_per_task does not divide the ranks
     */
    RankLoopSetup(collectives::Communicator& world, collectives::Communicator& node, LoopSettings settings,
                  const job::ScheduleSpec& schedule, placement::IdRange element, int gpus_per_task);
    ~RankLoopSetup();

    LoopSettings& settings() noexcept { return settings_; }
    const placement::GroupLayout& layout() const noexcept { return settings_.layout; }
    collectives::WorkCounters& counters() noexcept { return *counters_; }

    /**
     * Runs this rank's loop into `sink` (collective over its group) and flushes its progress.
     * @param source  the ids to run instead of the schedule's (tasks given back by quarantined ranks)
     */
    RankStats run(io::ResultSink& sink, WorkSource* source = nullptr);
    /**
     * Stops the stop watcher and ends the claim service once every rank has run. Collective over
     * world. Until then a signal to this rank still reaches the others, also while it waits for
     * them after its own loop (run_given_back), which it would otherwise sit in until their tasks end.
     */
    void finish();

private:
    /** The watcher thread, once (run() runs again for tasks given back); nothing to watch: none. */
    void start_watcher();

    LoopSettings settings_;
    std::unique_ptr<collectives::Communicator> group_;
    std::unique_ptr<collectives::Communicator> guarded_group_;
    std::unique_ptr<collectives::WorkCounters> counters_;
    std::unique_ptr<ProgressFeed> feed_;
    std::unique_ptr<WorkSource> source_;
    std::atomic<bool> drain_ran_out_{false};  ///< set by the watcher thread
    std::atomic<bool> in_loop_{false};        ///< the watcher feeds the progress only while a loop runs
    /** Publishes this rank's stop level and takes in the others', from the first run() to finish(). */
    std::unique_ptr<core::PeriodicThread> watcher_;  // last: stopped before the members it uses go
};

/**
 * Every rank's group layout: ranks ordered by (node, local rank), G in a row form a group.
 * Collective over `world`; `node` as above.
 */
placement::GroupLayout group_layout_of(collectives::Communicator& world, collectives::Communicator& node,
                                       int gpus_per_task);

}  // namespace shardrun::run
