#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "collectives/claims/work_counters.hpp"
#include "io/gpu_usage.hpp"
#include "runner/job/cost_spec.hpp"

namespace shardrun::run {

/**
 * A job's `budget:` (issue 38, point 3): dollars or kWh over all its runs. Before each task a
 * rank starts, the projected spend - what earlier runs and finished tasks spent, what the
 * running tasks are expected to, and this task's expected (the job's mean per task so far) -
 * is compared with the budget; past it, no rank takes a new task and the job drains (exit 3,
 * resumable with a raised budget). Counted across the job through WorkCounters' spend tally,
 * and latched as its drain, as FailureBudget does. Thread-safe.
 */
class SpendBudget {
public:
    /**
     * @param earlier  what the job's earlier runs spent, in the budget's unit (dollars or kWh)
     * @param earlier_tasks  over how many tasks: with it, a resume knows a task's cost from its first task
     */
    SpendBudget(job::BudgetSpec spec, double earlier, std::uint64_t earlier_tasks);

    /** Counts into the job's tally from now on (RankLoopSetup binds it). */
    void bind(collectives::WorkCounters& counters);
    /**
     * Whether a new task may start: false once the job drains on it. On true, the task's expected
     * spend is counted as running and returned (finished() takes it back).
     */
    bool may_start(std::int64_t& expected);
    /** A task ended (finished, failed or cut short): its spend replaces its expected one. */
    void finished(std::int64_t expected, const io::TaskGpuUsage& usage);
    /** Takes in another rank's decision and checks the job-wide tally; true (keep polling). */
    bool poll(collectives::WorkCounters& counters);
    /** "budget $0.50 reached: ..."; empty when this rank did not decide. */
    std::string reason() const;

private:
    /** The budget's integer unit: micro-dollars or millijoules. */
    double to_units(double amount) const;
    double from_units(double units) const;
    /** Drains when `tally` plus `next` passes the budget (caller holds mutex_). */
    bool check(const collectives::SpendTally& tally, std::int64_t next);

    job::BudgetSpec spec_;
    std::int64_t earlier_ = 0;
    std::int64_t earlier_tasks_ = 0;
    std::int64_t limit_ = 0;
    mutable std::mutex mutex_;
    collectives::WorkCounters* counters_ = nullptr;
    std::string reason_;
    std::atomic<bool> exhausted_{false};
};

}  // namespace shardrun::run
