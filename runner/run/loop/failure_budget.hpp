#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "collectives/claims/work_counters.hpp"

namespace shardrun::run {

/** When a job gives up on its tasks (job fields max_failures and fail_fast). */
struct FailurePolicy {
    /** Stop after this many failed tasks (failed after their retries) across the job; 0: no limit. */
    std::int64_t max_failures = 0;
    /**
     * Stop when the first this-many tasks to finish across the job all failed with one exit code
     * (a misspelled program, a missing module: every task would fail alike); 0: off. Default 5.
     */
    std::int64_t fail_fast = 5;
};

/**
 * Counts a run's failed tasks against its FailurePolicy, over every rank of the job (issue 35,
 * point 6). Once exhausted, the rank's loop takes no new task and the job drains: running tasks
 * finish, what finished is committed, exit 1.
 *
 * Each finished task goes at once into WorkCounters' outcome tally (node shared memory; from
 * another node, a message to the claim service), and every rank reads the tally before each
 * task it starts (exhausted()). So on a node the job stops within fail_fast (or max_failures)
 * plus the tasks already running, whatever the rank count. The rank that decides latches it
 * as WorkCounters' drain; poll() - called every few ms by the rank's watcher - takes in another
 * rank's decision (across nodes, rank 0 sees the complete tally). Thread-safe.
 */
class FailureBudget {
public:
    explicit FailureBudget(FailurePolicy policy) : policy_(policy) {}

    /** Counts into the job's tally from now on; until bound it counts nothing (RankLoopSetup binds it). */
    void bind(collectives::WorkCounters& counters);
    /** A task finished after its last attempt. */
    void record(bool ok, int exit_code);
    /**
     * Takes in another rank's decision (the job's drain) and checks the job-wide tally.
     * @return true (keep polling)
     */
    bool poll(collectives::WorkCounters& counters);
    /** True once the job stops taking tasks: reads the job-wide tally (a few atomic loads). */
    bool exhausted();
    /** "stopped after 3 failed tasks (max_failures: 3) ..."; empty when this rank did not decide. */
    std::string reason() const;

private:
    /** Decides on the tally so far, and on a decision publishes the drain (caller holds mutex_). */
    void check(const collectives::OutcomeTally& tally);
    void exhaust(std::string reason);

    FailurePolicy policy_;
    mutable std::mutex mutex_;
    collectives::WorkCounters* counters_ = nullptr;
    std::int64_t seen_ok_ = 0;       ///< ok tasks in the tally as this rank last read it
    std::string reason_;
    std::atomic<bool> exhausted_{false};
};

/** What an exit code says when it says something ("program not found" for 127); "" otherwise. */
std::string exit_code_meaning(int exit_code);

}  // namespace shardrun::run
