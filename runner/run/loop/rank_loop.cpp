#include "runner/run/loop/rank_loop.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "collectives/stall_guard.hpp"
#include "io/layout/output_layout.hpp"
#include "kernels/common/cpu_threads.hpp"
#include "runner/core/periodic_thread.hpp"
#include "runner/core/rank_fatal.hpp"
#include "runner/run/loop/attempts.hpp"
#include "runner/run/loop/device_health.hpp"
#include "runner/run/loop/loop_state.hpp"
#include "runner/run/loop/task_record.hpp"

namespace shardrun::run {
namespace {

void run_slot(const LoopSettings& settings, LoopState& state)
{
    // One ParamMap per slot, updated in place: the swept values change, the fixed ones stay.
    auto params = settings.space->params_of(0);
    const bool task_dirs = settings.kind->uses_task_dir();
    tasks::TaskContext context{0, settings.space->size(), &params, std::nullopt, settings.input, settings.device,
                               settings.rank, settings.host, std::string(), 1, settings.stop};
    // A group of one: kinds may still call its collectives (they complete at once).
    context.group.comm = settings.group;
    context.cpu_threads = settings.cpu_threads;
    kernels::use_cpu_threads(settings.kernel_threads);  // OpenMP's count is per thread: this slot's
    std::string device_problem;
    while (const auto id = state.next_id()) {
        auto record = begin_task(settings, context, params, *id,
                                 task_dirs ? fmt::format("{}/{}", settings.tasks_dir, *id) : std::string(),
                                 device_problem);
        const auto window = open_telemetry(settings);
        auto end = run_attempts(settings, context, device_problem);
        // Counted over every run, as /attempts numbers them: a drained attempt's rerun is attempt 2.
        end_task(settings, window, end, context.attempt_number(), record);
        settle_checkpoint(settings, context, end);
        if (!end.device_fault.empty() && end.outcome.status != io::TaskStatus::ok && !end.stop) {
            state.give_back(*id);  // its GPU failed it: another rank runs it, with all its retries
            continue;
        }
        const bool cut_short = interrupted(end);
        fill_reason(record, end, cut_short);  // marks a cut-short attempt, which is no failure
        if (settings.on_attempts_end) settings.on_attempts_end(context.task_dir, end.attempts);
        state.finish(record, end.outcome, cut_short);
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
    context.cpu_threads = settings.cpu_threads;
    kernels::use_cpu_threads(settings.kernel_threads);  // OpenMP's count is per thread: this slot's
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
                                   : io::layout::member_dir(fmt::format("{}/{}", settings.tasks_dir, id), group.rank()).string();
        auto record = begin_task(settings, context, params, id, std::move(task_dir), device_problem);
        // Every member samples its own GPU; the leader's row keeps the leader's (the columns are per rank's device).
        const auto window = open_telemetry(settings);
        auto end = run_attempts(settings, context, device_problem);  // collective over the group
        end_task(settings, window, end, context.attempt_number(), record);
        settle_checkpoint(settings, context, end);
        if (!leader) {
            // A member is as busy as its leader; only the leader counts the task itself.
            state.stats().busy_seconds += record.end - record.start;
            if (settings.on_attempts_end) settings.on_attempts_end(context.task_dir, end.attempts);
            continue;
        }
        const bool cut_short = interrupted(end);
        fill_reason(record, end, cut_short);  // marks a cut-short attempt, which is no failure
        if (settings.on_attempts_end) settings.on_attempts_end(context.task_dir, end.attempts);
        state.finish(record, end.outcome, cut_short);
    }
}

}  // namespace

RankStats run_rank_loop(const LoopSettings& settings, WorkSource& source, io::ResultSink& sink, ProgressFeed& feed)
{
    LoopState state(settings, source, sink, feed);
    // A stop commits what finished at once, before the running tasks are reaped: mpirun
    // sends SIGKILL a second after SIGTERM, and a task may take its whole grace period.
    std::optional<core::PeriodicThread> flusher;
    if (settings.periodic_commits && settings.stop != nullptr) {
        flusher.emplace(std::chrono::milliseconds(20), [&] {
            if (!settings.stopping()) return true;
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
    const auto final_commit = std::chrono::steady_clock::now();  // timed: the end of the run's last commit
    state.commit_finished();
    state.stats().final_commit_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - final_commit).count();
    feed.tick(true);
    if (settings.health != nullptr) state.stats().quarantine = settings.health->quarantine_line();
    return state.stats();
}

}  // namespace shardrun::run
