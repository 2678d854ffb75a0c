#include "runner/run/interrupt.hpp"

#include <signal.h>

namespace shardrun::run {
namespace {

std::atomic<bool> stop_flag{false};

extern "C" void on_stop_signal(int /*signal*/) { stop_flag.store(true); }

}  // namespace

const std::atomic<bool>& stop_requested() noexcept { return stop_flag; }

void install_interrupt_handlers()
{
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

}  // namespace shardrun::run
