#include "runner/run/loop/loop_state.hpp"

#include <algorithm>

#include "runner/run/loop/device_health.hpp"
#include "runner/run/loop/failure_budget.hpp"
#include "runner/run/loop/spend_budget.hpp"
#include "runner/run/report/failure_tails.hpp"

namespace shardrun::run {

LoopState::LoopState(const LoopSettings& settings, WorkSource& source, io::ResultSink& sink, ProgressFeed& feed)
    : settings_(settings), source_(source), sink_(sink), feed_(feed)
{
    stats_.rank = settings.rank;
}

std::optional<std::uint64_t> LoopState::next_id()
{
    std::lock_guard lock(mutex_);
    // Claims close at a drain or a stop (settings_.claims_closed), or at once when the job's
    // failures spent the budget: the tally is read before every task this rank starts.
    const auto* closed = settings_.claims_closed != nullptr ? settings_.claims_closed : settings_.stop;
    const auto taking = [&] {
        return (closed == nullptr || !closed->load()) && (settings_.failures == nullptr || !settings_.failures->exhausted());
    };
    if (settings_.health != nullptr && settings_.health->quarantined()) {
        give_back_rest();  // a quarantined GPU takes no new task; its share goes to the others
        return std::nullopt;
    }
    while (taking()) {
        if (k_ >= batch_.count) {
            batch_ = source_.next();
            k_ = 0;
            if (batch_.count == 0) return std::nullopt;
        }
        const auto id = batch_.id(k_++);
        if (settings_.committed != nullptr && (*settings_.committed)[id]) {
            ++stats_.already_done;
            continue;
        }
        // The budget last: it counts the task as running once it is sure to start.
        std::int64_t expected = 0;
        if (settings_.budget != nullptr) {
            if (!settings_.budget->may_start(expected)) {
                --k_;  // not started: it stays this rank's, pending, for --resume
                return std::nullopt;
            }
            expected_spend_[id] = expected;
        }
        feed_.task_started();
        return id;
    }
    return std::nullopt;
}

void LoopState::finish(const io::TaskRecord& record, const tasks::TaskOutcome& outcome, bool interrupted)
{
    std::lock_guard lock(mutex_);
    const bool ok = record.status == io::TaskStatus::ok;
    stats_.last_task_end = std::max(stats_.last_task_end, record.end);  // the run's end is timed from the last
    stats_.startup_seconds += outcome.startup_seconds;
    stats_.add_usage(record.cpu_time, record.mem_peak);  // an interrupted task used its CPU too
    feed_.task_finished(ok, interrupted);
    if (settings_.budget != nullptr) {
        // What the task spent counts even when it was cut short: the GPU-hours went.
        const auto found = expected_spend_.find(record.task_id);
        settings_.budget->finished(found != expected_spend_.end() ? found->second : 0, record.gpu);
        if (found != expected_spend_.end()) expected_spend_.erase(found);
    }
    if (!interrupted) {
        source_.task_finished(record.end - record.start);
        sink_.record(record, outcome.values);  // holds io::hdf5_mutex() itself
        if (settings_.on_task_recorded) settings_.on_task_recorded(record, outcome.values);
        stats_.add(record.task_id, record.end - record.start, ok, record.exit_code, outcome.message);
        if (ok) stats_.add_nans(outcome.values, settings_.fields);
        if (!ok && settings_.failure_tail_lines > 0 && settings_.kind->uses_task_dir()) {
            add_stderr_tail(stats_, record.task_id, settings_.tasks_dir, settings_.failure_tail_lines);
        }
        ++uncommitted_;
        if (settings_.failures != nullptr) settings_.failures->record(ok, record.exit_code);
    } else {
        // A pending row with the interrupted attempt (fill_reason): /attempts keeps it, the task runs again.
        sink_.record(record, {});
        ++uncommitted_;
        stats_.add_interrupted(record.task_id, record.end - record.start);
    }
    // Reading the clock for every no-op task would cost more than the task: look at it
    // every 64 tasks, or after any task that took longer than a millisecond.
    if (++since_clock_ < 64 && record.end - record.start < 1e-3) return;
    since_clock_ = 0;
    if (!settings_.periodic_commits) {
        feed_.tick();
        return;
    }
    if (uncommitted_ >= 4096 || Clock::now() - last_commit_ >= std::chrono::duration<double>(settings_.commit_interval_seconds)) {
        commit();
    }
    feed_.tick();
}

void LoopState::give_back(std::uint64_t id)
{
    std::lock_guard lock(mutex_);
    feed_.task_given_back();
    if (const auto found = expected_spend_.find(id); found != expected_spend_.end()) {
        settings_.budget->finished(found->second, io::TaskGpuUsage{});  // another rank runs it, and counts it
        expected_spend_.erase(found);
    }
    stats_.given_back.push_back({id, 1, 1});
}

void LoopState::give_back_rest()
{
    if (k_ < batch_.count) {
        stats_.given_back.push_back({batch_.id(k_), batch_.count - k_, batch_.stride});
        k_ = batch_.count;
    }
    if (source_.shared()) {
        // The other ranks claim the rest themselves; only what this rank claimed is its to give back.
        if (const auto claimed = source_.release(); claimed.count > 0) stats_.given_back.push_back(claimed);
        return;
    }
    for (auto batch = source_.next(); batch.count > 0; batch = source_.next()) stats_.given_back.push_back(batch);
}

void LoopState::commit_finished()
{
    std::lock_guard lock(mutex_);
    commit();
}

void LoopState::commit()
{
    sink_.commit();
    uncommitted_ = 0;
    last_commit_ = Clock::now();
}

}  // namespace shardrun::run
