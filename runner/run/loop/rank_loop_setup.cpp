#include "runner/run/loop/rank_loop_setup.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <optional>

#include "collectives/stall_guard.hpp"
#include "runner/core/periodic_thread.hpp"
#include "runner/run/interrupt.hpp"
#include "runner/run/loop/failure_budget.hpp"
#include "runner/run/loop/spend_budget.hpp"

namespace shardrun::run {

placement::GroupLayout group_layout_of(collectives::Communicator& world, collectives::Communicator& node,
                                       int gpus_per_task)
{
    // A node is named by its lowest world rank, which orders nodes as Topology::node_index does.
    const std::array<std::int32_t, 2> mine{node.allreduce_value<std::int32_t>(world.rank(), collectives::ReduceOp::min),
                                           node.rank()};
    std::vector<std::int32_t> all(2 * static_cast<size_t>(world.size()));
    world.allgather(std::span<const std::int32_t>(mine), std::span<std::int32_t>(all));
    std::vector<placement::RankPlace> places;
    for (size_t r = 0; r < static_cast<size_t>(world.size()); ++r) places.push_back({all[2 * r], all[2 * r + 1]});
    return placement::form_groups(places, gpus_per_task).at(static_cast<size_t>(world.rank()));
}

RankLoopSetup::RankLoopSetup(collectives::Communicator& world, collectives::Communicator& node, LoopSettings settings,
                             const job::ScheduleSpec& schedule, placement::IdRange element, int gpus_per_task)
    : settings_(std::move(settings))
{
    settings_.rank = world.rank();
    settings_.layout = group_layout_of(world, node, gpus_per_task);
    group_ = world.split(settings_.layout.group, settings_.layout.rank_in_group);
    const auto members = collectives::allgather_strings(*group_, fmt::format("world rank {} on {}", world.rank(),
                                                                             settings_.host));
    guarded_group_ = std::make_unique<collectives::StallGuard>(*group_, settings_.collective_timeout_seconds, members,
                                                               fmt::format("group {}", settings_.layout.group));
    settings_.group = guarded_group_.get();
    const bool claims = settings_.layout.rank_in_group == 0;
    counters_ = std::make_unique<collectives::WorkCounters>(world, node, claims);
    feed_ = std::make_unique<ProgressFeed>(*counters_);
    if (settings_.failures != nullptr) settings_.failures->bind(*counters_);  // counted across the job
    if (settings_.budget != nullptr) settings_.budget->bind(*counters_);
    source_ = make_work_source(schedule, element, settings_.layout, *counters_, settings_.slots);
}

RankLoopSetup::~RankLoopSetup() = default;

void RankLoopSetup::start_watcher()
{
    // A signal reaches one rank (scancel of one task, a node's OOM killer, a user's kill): it
    // drains or stops the whole job; so do the job's failures (max_failures, fail_fast), as a
    // drain. One watcher thread publishes this rank's level and budget, takes in the others',
    // and turns a drain that outlived drain_timeout into a stop.
    const bool signals = settings_.stop == &stop_requested();
    if (watcher_ || !(signals || settings_.failures != nullptr || settings_.budget != nullptr)) return;
    using Clock = std::chrono::steady_clock;
    const auto drain_limit = std::chrono::duration<double>(settings_.drain_timeout_seconds);
    watcher_ = std::make_unique<core::PeriodicThread>(
        std::chrono::milliseconds(20), [this, signals, drain_limit, published = StopLevel::none,
                                        drain_started = std::optional<Clock::time_point>()]() mutable {
        if (settings_.failures != nullptr) settings_.failures->poll(*counters_);
        if (settings_.budget != nullptr) settings_.budget->poll(*counters_);
        if (!signals) return true;
        if (stop_level() > published) {
            published = stop_level();
            counters_->request_stop(published);
        }
        if (const auto job = counters_->stop_level(); job > stop_level()) request_stop(job);
        if (stop_level() == StopLevel::drain) {
            if (!drain_started) drain_started = Clock::now();
            if (Clock::now() - *drain_started >= drain_limit) {
                drain_ran_out_ = true;
                request_stop(StopLevel::stop);
            }
        }
        if (in_loop_) feed_->tick();
        return true;
    });
}

RankStats RankLoopSetup::run(io::ResultSink& sink, WorkSource* source)
{
    start_watcher();
    const bool signals = settings_.stop == &stop_requested();
    in_loop_ = true;
    auto stats = run_rank_loop(settings_, source != nullptr ? *source : *source_, sink, *feed_);
    in_loop_ = false;
    // Other nodes' claims ask this rank no more for ids (it answers those already on their way).
    counters_->stop_claiming();
    // The loop may end (its task stopped at once, its budget spent on its last task) before
    // the watchers' next tick: publish now.
    if (settings_.failures != nullptr) settings_.failures->poll(*counters_);
    if (settings_.budget != nullptr) settings_.budget->poll(*counters_);
    if (signals && stop_level() > StopLevel::none) counters_->request_stop(stop_level());
    stats.drain_ran_out = drain_ran_out_;
    return stats;
}

void RankLoopSetup::finish()
{
    watcher_.reset();
    counters_->finish();
}

}  // namespace shardrun::run
