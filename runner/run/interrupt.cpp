#include "runner/run/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

namespace shardrun::run {
namespace {

std::atomic<bool> stop_flag{false};
std::atomic<int> signals_seen{0};

extern "C" void on_stop_signal(int /*signal*/)
{
    if (signals_seen.fetch_add(1) > 0) _exit(3);  // the second signal: stop now
    stop_flag.store(true);
}

}  // namespace

const std::atomic<bool>& stop_requested() noexcept { return stop_flag; }

void request_stop() noexcept { stop_flag.store(true); }

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
