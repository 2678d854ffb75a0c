#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "io/result_types.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/gpu/telemetry_sampler.hpp"
#include "runner/job/param_map.hpp"
#include "runner/run/loop/attempts.hpp"
#include "runner/run/loop/rank_loop.hpp"
#include "runner/run/loop/task_cost.hpp"

namespace shardrun::run {

/** Seconds since the epoch: the times /tasks and /attempts keep. */
double unix_now();

/**
 * Points the context at task `id` (its params, range, folder and device) and starts its record.
 * @param device_problem  set to why the task cannot run on this rank (a cuda task here without a GPU)
 */
io::TaskRecord begin_task(const LoopSettings& settings, tasks::TaskContext& context, job::ParamMap& params,
                          std::uint64_t id, std::string task_dir, std::string& device_problem);

/** A task's telemetry window, when the rank samples its GPU (settings.telemetry). */
/** What a task's meters read at its start: the telemetry window, the CPU energy counters. */
struct TaskMeters {
    std::optional<gpu::TelemetrySampler::WindowId> window;
    TaskCost::Start cost;
};
TaskMeters open_telemetry(const LoopSettings& settings);

/**
 * Ends the record of a task whose attempts ended: its start (when the work began, not the
 * worker's load), end, telemetry (to /tasks/gpu_*, its fault evidence to the listener and the
 * log), status, attempts and exit code.
 */
void end_task(const LoopSettings& settings, const TaskMeters& meters,
              const AttemptsEnd& end, int attempts, io::TaskRecord& record);

/**
 * What /tasks/message and /attempts keep of the attempts: the reason the summary prints. A task
 * `cut_short` (interrupted()) becomes a pending row whose last attempt is marked interrupted.
 */
/**
 * A task that succeeded (all its members) needs its checkpoint folder no more: the leader (or a
 * rank alone) removes it, unless exec.keep_checkpoints. Best effort: a folder that cannot be
 * removed is said on stderr, the task stays ok.
 */
void settle_checkpoint(const LoopSettings& settings, const tasks::TaskContext& context, const AttemptsEnd& end);

void fill_reason(io::TaskRecord& record, AttemptsEnd& end, bool cut_short);

/**
 * A task that did not succeed was interrupted, not failed, when the stop cut it short, or when
 * its last attempt died of the signal of a stop or drain that reached this rank (run_attempts
 * waited up to 2 s for it: see stop_signal_death.hpp).
 */
bool interrupted(const AttemptsEnd& end);

}  // namespace shardrun::run
