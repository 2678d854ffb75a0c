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
    /** Ends the claim service once every rank has run. Collective over world. */
    void finish();

private:
    LoopSettings settings_;
    std::unique_ptr<collectives::Communicator> group_;
    std::unique_ptr<collectives::Communicator> guarded_group_;
    std::unique_ptr<collectives::WorkCounters> counters_;
    std::unique_ptr<ProgressFeed> feed_;
    std::unique_ptr<WorkSource> source_;
    std::atomic<bool> drain_ran_out_{false};  ///< set by run()'s watcher thread
};

/**
 * Every rank's group layout: ranks ordered by (node, local rank), G in a row form a group.
 * Collective over `world`; `node` as above.
 */
placement::GroupLayout group_layout_of(collectives::Communicator& world, collectives::Communicator& node,
                                       int gpus_per_task);

}  // namespace shardrun::run
