// The job gives up after max_failures failed tasks, or when its first tasks all fail alike
// (issue 23, point 4), counted across the job (issue 35, point 6).
#include "runner/run/loop/failure_budget.hpp"

#include <fmt/format.h>

#include "runner/process/process.hpp"

namespace shardrun::run {

std::string exit_code_meaning(int exit_code)
{
    if (exit_code == process::exit_not_found) return "program not found";
    if (exit_code == process::exit_cannot_execute) return "program cannot execute";
    return "";
}

void FailureBudget::bind(collectives::WorkCounters& counters)
{
    std::lock_guard lock(mutex_);
    counters_ = &counters;
}

void FailureBudget::record(bool ok, int exit_code)
{
    std::lock_guard lock(mutex_);
    if (counters_ == nullptr) return;  // RankLoopSetup binds it before any task runs
    // Only what can still decide goes out (from another node each is a message): every
    // failure under max_failures, and under fail_fast the outcomes until the first ok.
    const bool counts = (policy_.max_failures > 0 && !ok) || (policy_.fail_fast > 0 && seen_ok_ == 0);
    if (!counts) return;
    // Published before this rank's slot takes its next task, where every rank of the node sees it.
    const auto tally = counters_->add_outcome(ok, exit_code);
    seen_ok_ = tally.ok;
    check(tally);
}

bool FailureBudget::poll(collectives::WorkCounters& counters)
{
    if (exhausted_.load()) return true;
    if (counters.stop_level() >= collectives::StopLevel::drain) {
        exhausted_.store(true);  // another rank decided (it names the reason), or a signal drains the job
        return true;
    }
    std::lock_guard lock(mutex_);
    check(counters.read_outcomes());  // on world rank 0: every node's outcomes
    return true;
}

bool FailureBudget::exhausted()
{
    if (exhausted_.load() || counters_ == nullptr) return exhausted_.load();
    std::lock_guard lock(mutex_);
    const auto tally = counters_->read_outcomes();
    seen_ok_ = tally.ok;
    check(tally);
    return exhausted_.load();
}

std::string FailureBudget::reason() const
{
    std::lock_guard lock(mutex_);
    return reason_;
}

void FailureBudget::check(const collectives::OutcomeTally& tally)
{
    if (exhausted_.load()) return;
    if (policy_.max_failures > 0 && tally.failed >= policy_.max_failures) {
        // The threshold, not the tally: ranks read it at different moments; the summary counts every failure.
        exhaust(fmt::format("stopped after {} failed tasks (max_failures: {}) across the job; no new task was started "
                            "(see docs/troubleshooting.md#fail-fast)",
                            policy_.max_failures, policy_.max_failures));
    } else if (policy_.fail_fast > 0 && tally.leading >= policy_.fail_fast && tally.one_code) {
        const auto meaning = exit_code_meaning(tally.leading_code);
        exhaust(fmt::format("stopped after the first {} tasks to finish across the job all failed with exit code {} "
                            "({}fail_fast: {}; set fail_fast: false to run every task anyway; see docs/troubleshooting.md#fail-fast)",
                            policy_.fail_fast, tally.leading_code, meaning.empty() ? "" : meaning + "; ", policy_.fail_fast));
    }
}

void FailureBudget::exhaust(std::string reason)
{
    reason_ = std::move(reason);
    exhausted_.store(true);
    // The drain latches the decision for every rank (a later ok must not undo it) and ends the
    // ranks' waits for work; from another node it is one message to the claim service.
    if (counters_ != nullptr) counters_->request_stop(collectives::StopLevel::drain);
}

}  // namespace shardrun::run
