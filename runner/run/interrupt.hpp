#pragma once

#include <atomic>
#include <string>

#include "collectives/claims/work_counters.hpp"

namespace shardrun::run {

using collectives::StopLevel;

/**
 * Signals, the way Slurm and Open MPI users expect (README, "Stopping a run"):
 * - SIGTERM or SIGINT (scancel, Ctrl-C, mpirun forwarding either, a preemption) stops: no new
 *   task, running tasks get SIGTERM, `timeout_grace`, then SIGKILL; they are recorded as
 *   interrupted (pending in the file), what finished is committed, and shardrun exits 3.
 * - SIGUSR1 drains: no new task; running tasks may finish within `drain_timeout`, then they
 *   are stopped as above.
 * - A signal after a drain stops; a signal after a stop ends the process at once (exit 3):
 *   what was committed is safe, as every commit is write-then-rename, and the rank's
 *   guardian (process/process_tree.hpp) kills its tasks.
 * One rank's level reaches every rank through collectives::WorkCounters.
 */

/** Running tasks must stop (level stop). What a task's wait polls. */
const std::atomic<bool>& stop_requested() noexcept;

/** No new task may start (level drain or stop). What the claim loop polls. */
const std::atomic<bool>& claims_closed() noexcept;

/** This process's level. */
StopLevel stop_level() noexcept;

/** Raises this process's level as a signal would (another rank was signalled, a drain ran out of time). */
void request_stop(StopLevel level = StopLevel::stop) noexcept;

/** The first signal this process received (SIGTERM, SIGINT, SIGUSR1), 0 if none. */
int first_signal() noexcept;

/** "SIGTERM", "SIGINT", "SIGUSR1", or "signal N". */
std::string signal_name(int signal);

/** Installs the handlers; idempotent. */
void install_interrupt_handlers();

}  // namespace shardrun::run
