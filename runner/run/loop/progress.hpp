#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "collectives/claims/work_counters.hpp"

namespace shardrun::core {
class PeriodicThread;
}  // namespace shardrun::core

namespace shardrun::run {

using collectives::ProgressCounts;
using collectives::WorkCounters;

enum class ProgressMode { automatic, tty, plain, json, quiet };

/** Draws the job-wide progress on rank 0: in place on a TTY, a line per interval otherwise, or JSON lines. */
class ProgressReporter {
public:
    ProgressReporter(ProgressMode mode, double interval_seconds, std::int64_t total, std::int64_t skipped);

    /** Draws now if the interval has passed (or `final`). */
    void update(const ProgressCounts& counts, bool final = false);

    /** The text of one progress line (no newline), for tests. */
    std::string line(const ProgressCounts& counts, double elapsed_seconds) const;

private:
    ProgressMode mode_;
    double interval_seconds_;
    std::int64_t total_, skipped_;
    std::chrono::steady_clock::time_point started_, last_draw_;
};

/**
 * One rank's view of progress: counts tasks as they start and finish and adds them to the
 * shared counters at most every 0.2 s (or when flushed), so counting costs no MPI call per task.
 * Thread-safe: slots count, and the rank's watcher thread also ticks, so tasks that started
 * show as running while they run, not only once they finish.
 */
class ProgressFeed {
public:
    explicit ProgressFeed(WorkCounters& counters) : counters_(counters) {}

    void task_started() { ++running_; }
    /** `interrupted`: cut short by a stop, neither ok nor failed (--resume runs it again). */
    /** A running task left for another rank (its GPU failed it): neither ok nor failed. */
    void task_given_back() { --running_; }
    void task_finished(bool ok, bool interrupted = false);
    /** Pushes pending counts when due; @param force  push now */
    void tick(bool force = false);

private:
    WorkCounters& counters_;
    std::atomic<std::int64_t> ok_{0}, failed_{0}, running_{0}, interrupted_{0};
    std::atomic<std::int64_t> last_push_ns_{0};
};

/** Rank 0's background thread: redraws progress while the main thread is busy in tasks. */
class ProgressThread {
public:
    ProgressThread(const WorkCounters& counters, ProgressReporter& reporter);
    ~ProgressThread();
    ProgressThread(const ProgressThread&) = delete;
    ProgressThread& operator=(const ProgressThread&) = delete;

private:
    std::unique_ptr<core::PeriodicThread> thread_;
};

/** Parses --progress=auto|tty|plain|json|quiet. */
ProgressMode parse_progress_mode(const std::string& text);

}  // namespace shardrun::run
