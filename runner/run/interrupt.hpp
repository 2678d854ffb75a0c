#pragma once

#include <atomic>

namespace shardrun::run {

/**
 * SIGINT, SIGTERM or SIGUSR1 (Ctrl-C, Slurm's time limit or --signal, preemption, scancel)
 * set this flag: ranks stop claiming tasks, running tasks are stopped, committed work is
 * kept, and shardrun exits 3. A second such signal ends the process at once (exit 3); what
 * was committed is safe, as every commit is write-then-rename.
 */
const std::atomic<bool>& stop_requested() noexcept;

/** Sets the flag as a signal would (another rank was signalled). */
void request_stop() noexcept;

/** Installs the handlers; idempotent. */
void install_interrupt_handlers();

}  // namespace shardrun::run
