#include "runner/run/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

namespace shardrun::run {
namespace {

// Everything here is written from a signal handler: lock-free atomics only.
std::atomic<bool> stop_flag{false};
std::atomic<bool> claims_flag{false};
std::atomic<std::int32_t> level_value{0};
std::atomic<int> first_signal_value{0};
std::atomic<int> signals_seen{0};

void raise_to(StopLevel level) noexcept
{
    const auto wanted = static_cast<std::int32_t>(level);
    auto current = level_value.load();
    while (current < wanted && !level_value.compare_exchange_weak(current, wanted)) {
    }
    if (level >= StopLevel::drain) claims_flag.store(true);
    if (level >= StopLevel::stop) stop_flag.store(true);
}

extern "C" void on_stop_signal(int signal)
{
    int expected = 0;
    first_signal_value.compare_exchange_strong(expected, signal);
    const bool seen_before = signals_seen.fetch_add(1) > 0;
    const auto level = static_cast<StopLevel>(level_value.load());
    if (level == StopLevel::stop && seen_before) _exit(3);  // stopping already, and asked again: now
    if (level == StopLevel::none && signal == SIGUSR1) {
        raise_to(StopLevel::drain);
    } else {
        raise_to(StopLevel::stop);
    }
}

}  // namespace

const std::atomic<bool>& stop_requested() noexcept { return stop_flag; }

const std::atomic<bool>& claims_closed() noexcept { return claims_flag; }

StopLevel stop_level() noexcept { return static_cast<StopLevel>(level_value.load()); }

void request_stop(StopLevel level) noexcept { raise_to(level); }

int first_signal() noexcept { return first_signal_value.load(); }

std::string signal_name(int signal)
{
    switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGUSR1: return "SIGUSR1";
    default: return fmt::format("signal {}", signal);
    }
}

void install_interrupt_handlers()
{
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGUSR1, &action, nullptr);
}

}  // namespace shardrun::run
