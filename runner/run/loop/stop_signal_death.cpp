#include "runner/run/loop/stop_signal_death.hpp"

#include <chrono>
#include <csignal>
#include <thread>

namespace shardrun::run {
namespace {

/** What the job's signal sets on this rank: the stop for SIGTERM and SIGINT, closed claims for SIGUSR1. */
const std::atomic<bool>* flag_of(const LoopSettings& settings, int signal)
{
    if (signal == SIGTERM || signal == SIGINT) return settings.stop;
    if (signal == SIGUSR1) return settings.claims_closed != nullptr ? settings.claims_closed : settings.stop;
    return nullptr;
}

}  // namespace

bool cut_short_by_stop_signal(const LoopSettings& settings, const tasks::TaskOutcome& outcome)
{
    if (outcome.status == io::TaskStatus::ok) return false;
    // 128 + N: the program (or its worker) died of signal N, or a shell passed on a child's death by it.
    const auto* reached = flag_of(settings, outcome.exit_code - 128);
    if (reached == nullptr) return false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!reached->load()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace shardrun::run
