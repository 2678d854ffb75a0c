#include "runner/run/rank_loop.hpp"

#include "collectives/stall_guard.hpp"
#include "runner/run/attempts.hpp"
#include "runner/exec/task_folder.hpp"
#include "runner/run/device_choice.hpp"
#include "runner/run/device_health.hpp"
#include "runner/run/loop_state.hpp"
#include "runner/run/periodic_thread.hpp"
#include "runner/tasks/rank_fatal.hpp"

#include <fmt/format.h>

#include <array>
#include <csignal>
#include <chrono>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

namespace shardrun::run {
namespace {

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool stopping(const LoopSettings& settings) { return settings.stop != nullptr && settings.stop->load(); }

// Points the context at task `id` (its params, range, folder and device) and starts its record.
// `device_problem` says why the task cannot run on this rank (a cuda task here without a GPU).
io::TaskRecord begin_task(const LoopSettings& settings, tasks::TaskContext& context, job::ParamMap& params,
                          std::uint64_t id, std::string task_dir, std::string& device_problem)
{
    settings.space->update_params(id, params);
    context.task_id = id;
    context.range = settings.space->range_of(id);
    context.task_dir = std::move(task_dir);
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
    context.attempt_base = context.task_dir.empty() ? 0 : exec::kept_attempts(context.task_dir);
    return {id, io::TaskStatus::ok, 0, settings.rank, settings.host, context.device.label(), unix_now(), 0, 0};
}

/** Opens a telemetry window for one task, when the rank samples its GPU. */
std::optional<gpu::TelemetrySampler::WindowId> open_telemetry(const LoopSettings& settings)
{
    if (settings.telemetry == nullptr) return std::nullopt;
    return settings.telemetry->open();
}

/** Closes the task's window: its values go to /tasks/gpu_*, its fault evidence to the listener and the log. */
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

// What /tasks/message and /attempts keep of the attempts: the reason the summary prints.
void fill_reason(io::TaskRecord& record, const AttemptsEnd& end)
{
    if (record.status != io::TaskStatus::ok) record.message = end.outcome.message;
    record.attempt_log = io::encode_attempts(end.attempts);
}

// A task that did not succeed was interrupted, not failed, when the stop cut it short, or when
// it died of SIGUSR1 while the job drains: Slurm's `scancel --signal=USR1` (the batch script's
// way of passing on --signal=B:USR1@120) reaches every process of the step, the tasks' too.
bool interrupted(const LoopSettings& settings, const AttemptsEnd& end)
{
    if (end.outcome.status == io::TaskStatus::ok) return false;
    if (end.stop) return true;
    if (end.outcome.exit_code != 128 + SIGUSR1 || settings.claims_closed == nullptr) return false;
    // The task may die of the drain's SIGUSR1 before this rank knows of the drain: scancel signals
    // the step's processes one by one, and another rank's drain arrives through the stop watcher
    // (every 20 ms). So a task killed by SIGUSR1 waits a little for the drain before it is judged;
    // a SIGUSR1 that was no drain's costs that wait once and is a failure.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (!settings.claims_closed->load()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

void run_slot(const LoopSettings& settings, LoopState& state)
{
    // One ParamMap per slot, updated in place: the swept values change, the fixed ones stay.
    auto params = settings.space->params_of(0);
    const bool task_dirs = settings.kind->uses_task_dir();
    tasks::TaskContext context{0, settings.space->size(), &params, std::nullopt, settings.input, settings.device,
                               settings.rank, settings.host, std::string(), 1, settings.stop};
    // A group of one: kinds may still call its collectives (they complete at once).
    context.group.comm = settings.group;
    std::string device_problem;
    while (const auto id = state.next_id()) {
        auto record = begin_task(settings, context, params, *id,
                                 task_dirs ? fmt::format("{}/{}", settings.tasks_dir, *id) : std::string(),
                                 device_problem);
        const auto window = open_telemetry(settings);
        const auto end = run_attempts(settings, context, device_problem);
        if (end.began) record.start = *end.began;  // the worker's load is not the task's time
        record.end = unix_now();
        close_telemetry(settings, window, record);
        record.status = end.outcome.status;
        record.attempts = context.attempt;
        record.exit_code = end.outcome.exit_code;
        if (!end.device_fault.empty() && end.outcome.status != io::TaskStatus::ok && !end.stop) {
            state.give_back(*id);  // its GPU failed it: another rank runs it, with all its retries
            continue;
        }
        fill_reason(record, end);
        state.finish(record, end.outcome, interrupted(settings, end));
    }
}

// One member of a group of several: the leader picks each id and broadcasts it.
void run_group_member(const LoopSettings& settings, LoopState& state)
{
    auto& group = *settings.group;
    const bool leader = group.rank() == 0;
    auto params = settings.space->params_of(0);
    const bool task_dirs = settings.kind->uses_task_dir();
    tasks::TaskContext context{0, settings.space->size(), &params, std::nullopt, settings.input, settings.device,
                               settings.rank, settings.host, std::string(), 1, settings.stop,
                               {&group, group.rank(), group.size(), settings.layout.local_rank_in_group,
                                settings.layout.local_members}};
    std::string device_problem;
    while (true) {
        std::array<std::uint64_t, 2> next{0, 0};  // id, and 1 while there is work
        if (leader) {
            if (const auto id = state.next_id()) next = {*id, 1};
        }
        group.broadcast(std::span<std::uint64_t>(next), 0);
        if (next[1] == 0) break;
        const auto id = next[0];
        // Members keep their output beside the leader's, in member<k>/.
        auto task_dir = !task_dirs ? std::string()
                        : leader   ? fmt::format("{}/{}", settings.tasks_dir, id)
                                   : fmt::format("{}/{}/member{}", settings.tasks_dir, id, group.rank());
        auto record = begin_task(settings, context, params, id, std::move(task_dir), device_problem);
        // Every member samples its own GPU; the leader's row keeps the leader's (the columns are per rank's device).
        const auto window = open_telemetry(settings);
        const auto end = run_attempts(settings, context, device_problem);  // collective over the group
        if (end.began) record.start = *end.began;
        record.end = unix_now();
        close_telemetry(settings, window, record);
        if (!leader) {
            // A member is as busy as its leader; only the leader counts the task itself.
            state.stats().busy_seconds += record.end - record.start;
            continue;
        }
        record.status = end.outcome.status;
        record.attempts = context.attempt;
        record.exit_code = end.outcome.exit_code;
        fill_reason(record, end);
        state.finish(record, end.outcome, interrupted(settings, end));
    }
}

}  // namespace

RankStats run_rank_loop(const LoopSettings& settings, WorkSource& source, io::ResultSink& sink, ProgressFeed& feed)
{
    LoopState state(settings, source, sink, feed);
    // A stop commits what finished at once, before the running tasks are reaped: mpirun
    // sends SIGKILL a second after SIGTERM, and a task may take its whole grace period.
    std::optional<PeriodicThread> flusher;
    if (settings.periodic_commits && settings.stop != nullptr) {
        flusher.emplace(std::chrono::milliseconds(20), [&] {
            if (!stopping(settings)) return true;
            state.commit_finished();
            return false;
        });
    }
    if (settings.group != nullptr && settings.group->size() > 1) {
        try {
            run_group_member(settings, state);
        } catch (const tasks::RankFatalError&) {
            if (settings.periodic_commits) state.commit_finished();
            throw;
        } catch (const collectives::CollectiveStall&) {
            // Keep what finished before the stall; layout single commits collectively, so it cannot.
            if (settings.periodic_commits) state.commit_finished();
            throw;
        }
    } else {
        // A RankFatalError ends every slot (the kind fails them all alike); the first is rethrown
        // once what finished is committed, and the interrupted tasks are left for --resume.
        std::exception_ptr fatal;
        std::mutex fatal_mutex;
        const auto slot = [&] {
            try {
                run_slot(settings, state);
            } catch (const tasks::RankFatalError&) {
                std::lock_guard lock(fatal_mutex);
                if (!fatal) fatal = std::current_exception();
            }
        };
        std::vector<std::thread> slots;
        for (int i = 1; i < settings.slots; ++i) slots.emplace_back(slot);
        slot();
        for (auto& thread : slots) thread.join();
        if (fatal) {
            if (settings.periodic_commits) state.commit_finished();
            std::rethrow_exception(fatal);
        }
    }
    state.commit_finished();
    feed.tick(true);
    if (settings.health != nullptr) state.stats().quarantine = settings.health->quarantine_line();
    return state.stats();
}

}  // namespace shardrun::run
