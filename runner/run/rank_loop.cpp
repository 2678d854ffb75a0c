#include "runner/run/rank_loop.hpp"

#include "collectives/stall_guard.hpp"
#include "io/hdf5/library_info.hpp"
#include "runner/run/device_choice.hpp"
#include "runner/run/periodic_thread.hpp"
#include "runner/tasks/rank_fatal.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace shardrun::run {
namespace {

using Clock = std::chrono::steady_clock;

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
    if (const auto* requested = params.find("device")) {
        auto chosen = task_device(settings.device, requested);
        context.device = *chosen.binding;
        device_problem = std::move(chosen.problem);
    }
    return {id, io::TaskStatus::ok, 0, settings.rank, settings.host, context.device.label(), unix_now(), 0, 0};
}

// One attempt: the kind's run, unless the task asked for a device this rank lacks.
tasks::TaskOutcome run_kind(const LoopSettings& settings, const tasks::TaskContext& context,
                            const std::string& device_problem)
{
    if (!device_problem.empty()) return {io::TaskStatus::failed, 1, device_problem, {}};
    return settings.kind->run(context);
}

// A task's values must match the declared fields exactly, or the task counts as failed.
std::string shape_problem(const io::TaskValues& values, const std::vector<io::FieldSpec>& fields)
{
    if (values.size() != fields.size()) {
        return fmt::format("returned {} result fields, {} are declared", values.size(), fields.size());
    }
    for (size_t i = 0; i < fields.size(); ++i) {
        if (values[i].size() != fields[i].bytes()) {
            return fmt::format("result '{}' has {} bytes, its declared shape needs {}", fields[i].name,
                               values[i].size(), fields[i].bytes());
        }
    }
    return "";
}

tasks::TaskOutcome run_attempts(const LoopSettings& settings, tasks::TaskContext& context,
                                const std::string& device_problem)
{
    tasks::TaskOutcome outcome;
    for (context.attempt = 1; context.attempt <= settings.retries + 1; ++context.attempt) {
        try {
            outcome = run_kind(settings, context, device_problem);
        } catch (const tasks::RankFatalError&) {
            throw;  // the kind can run nothing more here; run_rank_loop ends the rank
        } catch (const std::exception& error) {
            outcome = {io::TaskStatus::failed, 1, error.what(), {}};
        }
        if (outcome.status == io::TaskStatus::ok) {
            const auto problem = shape_problem(outcome.values, settings.fields);
            if (problem.empty()) break;
            outcome = {io::TaskStatus::failed, 0, problem, {}};
        }
        // Another attempt on this rank would find no GPU either.
        if (stopping(settings) || !device_problem.empty()) break;
    }
    context.attempt = std::min(context.attempt, settings.retries + 1);
    return outcome;
}

/** Shared by the slots of one rank: the work source, the sink and the counts. */
class LoopState {
public:
    LoopState(const LoopSettings& settings, WorkSource& source, io::ResultSink& sink, ProgressFeed& feed)
        : settings_(settings), source_(source), sink_(sink), feed_(feed)
    {
        stats_.rank = settings.rank;
    }

    /** The next id to run, skipping ids committed earlier; nullopt when done. */
    std::optional<std::uint64_t> next_id()
    {
        std::lock_guard lock(mutex_);
        while (!stopping(settings_)) {
            if (k_ >= batch_.count) {
                batch_ = source_.next();
                k_ = 0;
                if (batch_.count == 0) return std::nullopt;
            }
            const auto id = batch_.id(k_++);
            if (settings_.committed != nullptr && (*settings_.committed)[id]) {
                ++stats_.skipped;
                continue;
            }
            feed_.task_started();
            return id;
        }
        return std::nullopt;
    }

    void finish(const io::TaskRecord& record, const tasks::TaskOutcome& outcome, bool interrupted)
    {
        std::lock_guard lock(mutex_);
        const bool ok = record.status == io::TaskStatus::ok;
        feed_.task_finished(ok);
        if (!interrupted) {
            const std::lock_guard hdf5(io::hdf5_mutex());
            sink_.record(record, outcome.values);
            stats_.add(record.task_id, record.end - record.start, ok, record.exit_code, outcome.message);
            ++uncommitted_;
        }
        // Reading the clock for every no-op task would cost more than the task: look at it
        // every 64 tasks, or after any task that took longer than a millisecond.
        if (++since_clock_ < 64 && record.end - record.start < 1e-3) return;
        since_clock_ = 0;
        if (!settings_.periodic_commits) {
            feed_.tick();
            return;
        }
        if (uncommitted_ >= 4096 || Clock::now() - last_commit_ >= std::chrono::duration<double>(settings_.commit_interval_seconds)) {
            commit();
        }
        feed_.tick();
    }

    /** Commits what finished so far, from outside the slots (a stop's flush). */
    void commit_finished()
    {
        std::lock_guard lock(mutex_);
        commit();
    }

    void commit()
    {
        const std::lock_guard hdf5(io::hdf5_mutex());
        sink_.commit();
        uncommitted_ = 0;
        last_commit_ = Clock::now();
    }

    RankStats& stats() { return stats_; }

private:
    const LoopSettings& settings_;
    WorkSource& source_;
    io::ResultSink& sink_;
    ProgressFeed& feed_;
    std::mutex mutex_;
    placement::IdBatch batch_{};
    std::uint64_t k_ = 0;
    RankStats stats_;
    std::uint64_t uncommitted_ = 0;
    unsigned since_clock_ = 0;
    Clock::time_point last_commit_ = Clock::now();
};

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
        const auto outcome = run_attempts(settings, context, device_problem);
        record.end = unix_now();
        record.status = outcome.status;
        record.attempts = context.attempt;
        record.exit_code = outcome.exit_code;
        const bool interrupted = outcome.status != io::TaskStatus::ok && stopping(settings);
        state.finish(record, outcome, interrupted);
    }
}

// The attempts of one task on every member of a group: after each, the members agree on
// whether all succeeded and whether anyone is stopping, so none waits alone in a collective.
// A member without the GPU its task asks for fails each attempt at once: members retry
// together, as giving up early would need one more agreement.
tasks::TaskOutcome run_group_attempts(const LoopSettings& settings, tasks::TaskContext& context,
                                      const std::string& device_problem, bool& stop)
{
    auto& group = *settings.group;
    tasks::TaskOutcome outcome;
    for (context.attempt = 1; context.attempt <= settings.retries + 1; ++context.attempt) {
        try {
            outcome = run_kind(settings, context, device_problem);
        } catch (const collectives::CollectiveStall&) {
            throw;  // the group cannot go on without the missing member: the job ends, naming it
        } catch (const tasks::RankFatalError&) {
            throw;
        } catch (const std::exception& error) {
            outcome = {io::TaskStatus::failed, 1, error.what(), {}};
        }
        if (outcome.status == io::TaskStatus::ok && group.rank() == 0) {
            const auto problem = shape_problem(outcome.values, settings.fields);
            if (!problem.empty()) outcome = {io::TaskStatus::failed, 0, problem, {}};
        }
        const std::array<std::int32_t, 3> mine{outcome.status == io::TaskStatus::ok ? 1 : 0, outcome.exit_code,
                                               stopping(settings) ? 1 : 0};
        std::vector<std::int32_t> all(mine.size() * static_cast<size_t>(group.size()));
        group.allgather(std::span<const std::int32_t>(mine), std::span<std::int32_t>(all));
        stop = false;
        int first_failed = -1;
        for (int m = 0; m < group.size(); ++m) {
            stop = stop || all[3 * m + 2] != 0;
            if (first_failed < 0 && all[3 * m] == 0) first_failed = m;
        }
        if (first_failed < 0) break;
        if (outcome.status == io::TaskStatus::ok) {
            const auto code = all[3 * first_failed + 1];
            outcome = {io::TaskStatus::failed, code, fmt::format("group member {} failed (exit code {})", first_failed, code), {}};
        }
        if (stop) break;
    }
    context.attempt = std::min(context.attempt, settings.retries + 1);
    return outcome;
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
        bool stop = false;
        const auto outcome = run_group_attempts(settings, context, device_problem, stop);
        record.end = unix_now();
        if (!leader) {
            // A member is as busy as its leader; only the leader counts the task itself.
            state.stats().busy_seconds += record.end - record.start;
            continue;
        }
        record.status = outcome.status;
        record.attempts = context.attempt;
        record.exit_code = outcome.exit_code;
        state.finish(record, outcome, outcome.status != io::TaskStatus::ok && stop);
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
    return state.stats();
}

}  // namespace shardrun::run
