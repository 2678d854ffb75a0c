#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectives/communicator.hpp"
#include "io/attempt_log.hpp"
#include "io/result_sink.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/env/device_binding.hpp"
#include "runner/gpu/telemetry_sampler.hpp"
#include "runner/job/task_space.hpp"
#include "runner/run/loop/progress.hpp"
#include "runner/run/loop/work_source.hpp"
#include "runner/run/rank_stats.hpp"
#include "runner/run/setup/auto_device_route.hpp"

namespace shardrun::run {

class FailureBudget;
class DeviceHealth;
class SpendBudget;
class TaskCost;

/** What a rank needs to run its tasks. */
struct LoopSettings {
    const tasks::TaskKind* kind = nullptr;
    const job::TaskSpace* space = nullptr;
    std::vector<io::FieldSpec> fields;      ///< what every ok task must return
    std::string input;                      ///< data.input
    env::DeviceBinding device;
    int rank = 0;
    std::string host;
    std::string tasks_dir;                  ///< <output>.tasks: one directory per exec task
    /** exec.keep_checkpoints: a task's checkpoint folder stays after it succeeded. */
    bool keep_checkpoints = false;
    int retries = 0;
    int slots = 1;                          ///< tasks run at once on this rank
    /** Threads each task should start: the rank's CPU share (env/cpu_share.hpp) over its slots; 0: not known. */
    int cpu_threads = 0;
    /** The same for the built-in kernels of each slot (OpenMP, OpenBLAS); 0: as the libraries chose from
     *  the environment (which set OMP_NUM_THREADS or the like). */
    int kernel_threads = 0;
    const std::vector<bool>* committed = nullptr;  ///< ids finished by an earlier run (resume)
    /** Attempts earlier runs made of tasks not committed ok (resume): attempt numbers go on from them. */
    const std::unordered_map<std::uint64_t, int>* earlier_attempts = nullptr;
    /** Running tasks must stop (see interrupt.hpp); also closes claims when `claims_closed` is null. */
    const std::atomic<bool>* stop = nullptr;
    /** The stop was asked for (drain, SIGTERM). */
    bool stopping() const noexcept { return stop != nullptr && stop->load(); }
    /** No new task may start (a drain); running ones finish. */
    const std::atomic<bool>* claims_closed = nullptr;
    /** A drain that lasts this long becomes a stop (the watcher of RankLoopSetup::run). */
    double drain_timeout_seconds = 90;
    /** Once exhausted (max_failures, fail_fast), no new task starts; running ones finish. */
    FailureBudget* failures = nullptr;
    /** The job's budget: (issue 38); past it no new task starts. nullptr without one. */
    SpendBudget* budget = nullptr;
    /** Energy (RAPL) and money (price:) of each task; nullptr when neither is known. */
    const TaskCost* cost = nullptr;
    /**
     * This rank's GPU under quarantine watch (run/device_health.hpp); nullptr on the CPU and in
     * groups of several. A task failed by a device fault is given back (LoopState::give_back),
     * and once the device is quarantined the rank takes no new task.
     */
    DeviceHealth* health = nullptr;
    double commit_interval_seconds = 1.0;
    /** false: commit only once, at the end (layout single, where commit() is collective). */
    bool periodic_commits = true;
    /** gpus_per_task > 1: this rank's group; its leader's source hands out the ids. */
    collectives::Communicator* group = nullptr;
    placement::GroupLayout layout;
    /** The group's collectives end the job, naming who did not join, after this long; 0: never. */
    double collective_timeout_seconds = 600;
    /** This rank's GPU telemetry (NVML); null without a GPU, without NVML, or with telemetry_interval: off. */
    gpu::TelemetrySampler* telemetry = nullptr;
    /**
     * Called with every finished task's telemetry (all its attempts), before it is recorded: the
     * fault evidence (Xid, ECC, retired pages) that quarantine counts. Called from the slots' threads.
     */
    std::function<void(const io::TaskRecord&, const gpu::TaskTelemetry&)> on_task_telemetry;
    /**
     * Called once a task's attempts ended, on every member of its group with the member's own
     * folder (empty for a kind without task folders) and attempts: a remote output's TaskLogUploader
     * keeps the failed ones' logs. Called from the slots' threads.
     */
    std::function<void(const std::string& task_dir, const std::vector<io::AttemptRecord>& attempts)> on_attempts_end;
    /**
     * Called with every task recorded as finished (ok or failed, not cut short) and the values the
     * output stores for it: `run --task` prints them. Called from the slots' threads, serialised.
     */
    std::function<void(const io::TaskRecord&, const io::TaskValues&)> on_task_recorded;
    /** Last stderr lines kept with each of the rank's first failures (RankStats::failures); 0: none. */
    std::size_t failure_tail_lines = 0;
    /** device: auto's CPU rule (run/setup/auto_device_route.hpp); applied only while `device` is a GPU. */
    std::optional<TaskRoute> route;
};

/**
 * Runs every task the source hands this rank: retries failures, records each finished task
 * in the sink, commits in batches (every commit_interval_seconds or 4096 tasks) and at the end.
 * A task cut short by an interrupt is not recorded: --resume runs it again.
 *
 * With a group of more than one member, the leader takes ids from its source and broadcasts
 * each (and the end of work) to the members; all run it, agree after every attempt on its
 * outcome and on whether to stop, and the leader alone records it. Collective over the group.
 */
RankStats run_rank_loop(const LoopSettings& settings, WorkSource& source, io::ResultSink& sink, ProgressFeed& feed);

}  // namespace shardrun::run
