#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace shardrun::core {

/**
 * A background thread that calls `tick` every `period` until `tick` returns false or the
 * object is stopped. Stopping wakes the thread at once: a run's end never waits out the rest
 * of a period (a one-task job would otherwise pay each thread's period at its end).
 */
class PeriodicThread {
public:
    PeriodicThread(std::chrono::milliseconds period, std::function<bool()> tick);
    /** Stops and joins. */
    ~PeriodicThread();
    PeriodicThread(const PeriodicThread&) = delete;
    PeriodicThread& operator=(const PeriodicThread&) = delete;

    /** Wakes the thread and waits for it; a tick under way finishes first. Idempotent. */
    void stop();

private:
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;  // last: it starts once the members it uses exist
};

}  // namespace shardrun::core
