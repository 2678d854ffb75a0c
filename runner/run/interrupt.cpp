#include "runner/run/interrupt.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>

#include "runner/process/process_tree.hpp"

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

// The last stop signal: its number, when (monotonic ns) and whether the guard passed it on.
std::atomic<int> last_signal{0};
std::atomic<std::int64_t> last_signal_ns{0};
std::atomic<bool> last_forwarded{false};
std::atomic<pid_t> last_sender{0};
// A signal and the guard's copy of it arrive this close together when one kill reached both.
constexpr std::int64_t same_signal_ns = 1'000'000'000;

std::int64_t monotonic_ns() noexcept
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
    return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

bool from_guard(const siginfo_t* info) noexcept
{
    const pid_t guard = process::orphan_guard_pid();
    return info != nullptr && guard != 0 && info->si_code == SI_QUEUE && info->si_pid == guard &&
           info->si_value.sival_int == process::guard_forward_mark;
}

// One signal sent to the rank and its guard both (Slurm's scancel signals every process of the
// step; `pkill -f` finds both) arrives twice, once passed on by the guard: it counts once, or a
// drain would become a stop. So does one sender's repeat within the second: GNU `timeout`
// signals mpirun as its child and again through its process group, and mpirun passes both on.
// A second signal the user sends later counts as the docs say.
bool copy_of_last(int signal, bool forwarded, pid_t sender) noexcept
{
    const auto now = monotonic_ns();
    const bool soon = last_signal.load() == signal && now - last_signal_ns.load() < same_signal_ns;
    const bool copy = soon && (last_forwarded.load() != forwarded || (sender != 0 && last_sender.load() == sender));
    last_signal.store(signal);
    last_signal_ns.store(now);
    last_forwarded.store(forwarded);
    last_sender.store(sender);
    if (copy) last_signal.store(0);  // a third arrival is a new signal
    return copy;
}

extern "C" void on_stop_signal(int signal, siginfo_t* info, void*)
{
    if (copy_of_last(signal, from_guard(info), info != nullptr ? info->si_pid : 0)) return;
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
    action.sa_sigaction = on_stop_signal;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGUSR1, &action, nullptr);
}

}  // namespace shardrun::run
