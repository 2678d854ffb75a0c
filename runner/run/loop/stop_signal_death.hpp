#pragma once

#include "runner/core/task_kind.hpp"
#include "runner/run/loop/rank_loop.hpp"

namespace shardrun::run {

/**
 * Whether a failed attempt died of the signal that stops (SIGTERM, SIGINT) or drains (SIGUSR1)
 * the job, once that stop or drain has reached this rank: the attempt was cut short, not failed,
 * and is neither retried nor counted as a failure.
 *
 * Slurm's scancel (and a `kill` of every process of the run) signals a task's process at the
 * same moment as its rank, and the task may die and be reaped before the rank's handler has
 * run, or before another rank's stop arrives through the stop watcher (every 20 ms). So an
 * attempt that died of such a signal while this rank knows of no stop waits up to 2 s for it;
 * a signal that was no stop's (a user's `kill` of the task alone) costs that wait once, and the
 * attempt is the failure it looks like.
 */
bool cut_short_by_stop_signal(const LoopSettings& settings, const tasks::TaskOutcome& outcome);

}  // namespace shardrun::run
