#pragma once

#include <atomic>

namespace shardrun::run {

/**
 * SIGINT/SIGTERM (Ctrl-C, Slurm's time limit, preemption) set this flag: ranks stop claiming
 * tasks, running tasks are stopped, committed work is kept, and shardrun exits 3.
 */
const std::atomic<bool>& stop_requested() noexcept;

/** Installs the handlers; idempotent. */
void install_interrupt_handlers();

}  // namespace shardrun::run
