// The job gives up after max_failures failed tasks, or when its first tasks all fail alike (issue 23, point 4).
#include "runner/run/loop/failure_budget.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shardrun::run {

void FailureBudget::record(bool ok, int exit_code)
{
    std::lock_guard lock(mutex_);
    if (ok) {
        ++ok_;
    } else {
        if (failed_ == 0) first_code_ = exit_code;
        one_code_ = one_code_ && exit_code == first_code_;
        ++failed_;
    }
    check(ok_, failed_);
}

bool FailureBudget::poll(collectives::WorkCounters& counters)
{
    std::lock_guard lock(mutex_);
    if (exhausted_.load()) {
        if (!published_) counters.request_stop(collectives::StopLevel::drain);
        published_ = true;
        return true;
    }
    if (counters.stop_level() >= collectives::StopLevel::drain) {
        exhausted_.store(true);  // another rank decided (it names the reason), or a signal drains the job
        published_ = true;
        return true;
    }
    // The shared counts (complete on world rank 0, this node's share elsewhere) lag by a progress push.
    const auto job = counters.read_progress();
    check(std::max(ok_, job.ok), std::max(failed_, job.failed));
    return true;
}

std::string FailureBudget::reason() const
{
    std::lock_guard lock(mutex_);
    return reason_;
}

void FailureBudget::check(std::int64_t ok, std::int64_t failed)
{
    if (exhausted_.load()) return;
    if (policy_.max_failures > 0 && failed >= policy_.max_failures) {
        exhaust(fmt::format("stopped after {} failed tasks (max_failures: {}); no new task was started", failed,
                            policy_.max_failures));
    } else if (policy_.fail_fast > 0 && ok == 0 && failed >= policy_.fail_fast && failed_ > 0 && one_code_) {
        exhaust(fmt::format("stopped after the first {} tasks all failed with exit code {} (fail_fast: {}; set "
                            "fail_fast: false to run every task anyway)",
                            failed, first_code_, policy_.fail_fast));
    }
}

void FailureBudget::exhaust(std::string reason)
{
    reason_ = std::move(reason);
    exhausted_.store(true);
}

}  // namespace shardrun::run
