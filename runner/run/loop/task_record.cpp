#include "runner/run/loop/task_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "io/layout/output_layout.hpp"
#include "runner/process/task_folder.hpp"
#include "runner/run/setup/device_choice.hpp"

namespace shardrun::run {

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

io::TaskRecord begin_task(const LoopSettings& settings, tasks::TaskContext& context, job::ParamMap& params,
                          std::uint64_t id, std::string task_dir, std::string& device_problem)
{
    settings.space->update_params(id, params);
    context.task_id = id;
    context.range = settings.space->range_of(id);
    context.task_dir = std::move(task_dir);
    // The same folder for every attempt and member, and for the task in a later (resumed) run.
    context.checkpoint_dir = context.task_dir.empty() ? std::string()
                             : io::layout::checkpoint_dir(settings.tasks_dir, id).string();
    device_problem.clear();
    context.device = settings.device;
    const auto* requested = params.find("device");
    if (requested != nullptr) {
        auto chosen = task_device(settings.device, requested);
        context.device = *chosen.binding;
        device_problem = std::move(chosen.problem);
    }
    // device: auto sends a task its rank's GPU would run slower to the CPU; /tasks/device says where it ran.
    if (settings.route && settings.device.cuda && device_problem.empty() &&
        auto_sends_to_cpu(true, requested, routes_to_cpu(*settings.route, params))) {
        context.device = routed_cpu_binding(*settings.route);
    }
    // After the attempts of earlier runs: those the output records (a worker's or a kernel's task
    // keeps no per-attempt files) and those whose output its folder keeps.
    context.attempt_base = context.task_dir.empty() ? 0 : process::kept_attempts(context.task_dir);
    if (settings.earlier_attempts != nullptr) {
        if (const auto found = settings.earlier_attempts->find(id); found != settings.earlier_attempts->end()) {
            context.attempt_base = std::max(context.attempt_base, found->second);
        }
    }
    return {id, io::TaskStatus::ok, 0, settings.rank, settings.host, context.device.label(), unix_now(), 0, 0};
}

TaskMeters open_telemetry(const LoopSettings& settings)
{
    TaskMeters meters;
    if (settings.telemetry != nullptr) meters.window = settings.telemetry->open();
    if (settings.cost != nullptr) meters.cost = settings.cost->start();
    return meters;
}

namespace {

void close_telemetry(const LoopSettings& settings, std::optional<gpu::TelemetrySampler::WindowId> window,
                     io::TaskRecord& record)
{
    if (!window) return;
    const auto telemetry = settings.telemetry->close(*window);
    record.gpu = telemetry.usage;
    if (telemetry.faults.any()) {
        std::cerr << fmt::format("shardrun: rank {} on {} ({}): task {}: the GPU reported {}\n", settings.rank,
                                 settings.host, record.device, record.task_id, telemetry.faults.detail)
                  << std::flush;
    }
    if (settings.on_task_telemetry) settings.on_task_telemetry(record, telemetry);
}

}  // namespace

void end_task(const LoopSettings& settings, const TaskMeters& meters, const AttemptsEnd& end, int attempts,
              io::TaskRecord& record)
{
    if (end.began) record.start = *end.began;  // the worker's load is not the task's time
    record.end = unix_now();
    close_telemetry(settings, meters.window, record);
    if (settings.cost != nullptr) settings.cost->fill(meters.cost, record.end - record.start, record.gpu);
    record.status = end.outcome.status;
    record.attempts = attempts;
    record.exit_code = end.outcome.exit_code;
    record.cpu_time = end.cpu_time;
    record.mem_peak = end.mem_peak;
}

void settle_checkpoint(const LoopSettings& settings, const tasks::TaskContext& context, const AttemptsEnd& end)
{
    if (context.checkpoint_dir.empty() || settings.keep_checkpoints || end.outcome.status != io::TaskStatus::ok) return;
    if (context.group.comm != nullptr && context.group.rank != 0) return;  // one folder per task: the leader's to remove
    std::error_code error;
    std::filesystem::remove_all(context.checkpoint_dir, error);  // most tasks never made one: one failed lstat
    if (error) {
        std::cerr << fmt::format("shardrun: task {}: cannot remove its checkpoint folder {}: {}\n", context.task_id,
                                 context.checkpoint_dir, error.message())
                  << std::flush;
    }
}

void fill_reason(io::TaskRecord& record, AttemptsEnd& end, bool cut_short)
{
    if (cut_short && !end.attempts.empty()) {
        // Recorded all the same, as a pending row: the task runs again, and /attempts keeps this one.
        end.attempts.back().interrupted = true;
        record.status = io::TaskStatus::pending;
    } else if (record.status != io::TaskStatus::ok) {
        record.message = end.outcome.message;
    }
    record.attempt_log = io::encode_attempts(end.attempts) + io::encode_row_failures(end.outcome.row_failures);
}

bool interrupted(const AttemptsEnd& end)
{
    // end.stop: a stop reached the rank (or its group), or the last attempt died of the signal of
    // a stop or drain that reached it (SIGUSR1 included: Slurm's `scancel --signal=USR1`, the batch
    // script's way of passing on --signal=B:USR1@N, reaches every process of the step), which
    // run_attempts waited for (stop_signal_death.hpp).
    return end.outcome.status != io::TaskStatus::ok && end.stop;
}

}  // namespace shardrun::run
