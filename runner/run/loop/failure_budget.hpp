#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "collectives/claims/work_counters.hpp"

namespace shardrun::run {

/** When a job gives up on its tasks (job fields max_failures and fail_fast). */
struct FailurePolicy {
    /** Stop after this many failed tasks (failed after their retries); 0: no limit. */
    std::int64_t max_failures = 0;
    /**
     * Stop when the first this-many tasks to finish all failed with one exit code (a misspelled
     * program, a missing module: every task would fail alike); 0: off. Default 5.
     */
    std::int64_t fail_fast = 5;
};

/**
 * Counts a run's failed tasks against its FailurePolicy. Once exhausted, the rank's loop takes no
 * new task and the job drains: running tasks finish, what finished is committed, exit 1.
 *
 * Each rank records its own tasks as they finish (so a rank stops at once, not a progress push
 * later), and poll() - called every few ms by the rank's watcher - compares the job-wide counts
 * and passes the decision between ranks through WorkCounters' drain flag. Thread-safe.
 */
class FailureBudget {
public:
    explicit FailureBudget(FailurePolicy policy) : policy_(policy) {}

    /** A task finished after its last attempt. */
    void record(bool ok, int exit_code);
    /**
     * Publishes this rank's decision, takes in another rank's, and checks the job-wide counts.
     * @return true (keep polling)
     */
    bool poll(collectives::WorkCounters& counters);
    /** True once the job stops taking tasks. */
    bool exhausted() const noexcept { return exhausted_.load(); }
    /** "stopped after 3 failed tasks (max_failures: 3)"; empty when this rank did not decide. */
    std::string reason() const;

private:
    /** Decides on `ok` and `failed` tasks so far (caller holds mutex_). */
    void check(std::int64_t ok, std::int64_t failed);
    void exhaust(std::string reason);

    FailurePolicy policy_;
    mutable std::mutex mutex_;
    std::int64_t ok_ = 0, failed_ = 0;
    int first_code_ = 0;
    bool one_code_ = true;  ///< every failure this rank saw had first_code_
    std::string reason_;
    bool published_ = false;
    std::atomic<bool> exhausted_{false};
};

}  // namespace shardrun::run
