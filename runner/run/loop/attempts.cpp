#include "runner/run/loop/attempts.hpp"

#include "collectives/stall_guard.hpp"
#include "runner/core/rank_fatal.hpp"
#include "runner/process/process.hpp"
#include "runner/run/loop/device_health.hpp"
#include "runner/run/loop/stop_signal_death.hpp"
#include "runner/run/loop/task_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <array>
#include <cstdint>
#include <exception>
#include <vector>

namespace shardrun::run {
namespace {

bool in_group(const LoopSettings& settings) { return settings.group != nullptr && settings.group->size() > 1; }

// One attempt: the kind's run, unless the task asked for a device this rank lacks.
tasks::TaskOutcome run_kind(const LoopSettings& settings, const tasks::TaskContext& context,
                            const std::string& device_problem)
{
    if (!device_problem.empty()) return tasks::TaskOutcome::failure(1, device_problem);
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

/** What the members agreed on after an attempt. */
struct Agreed {
    bool all_ok = true;
    bool stop = false;
    int first_failed = -1;      ///< the lowest member whose attempt failed
    std::int32_t exit_code = 0; ///< its exit code
};

// Alone: this rank's own outcome. In a group: one allgather of (ok, exit code, stopping).
// `cut_short`: the attempt died of the job's stop or drain signal (stop_signal_death.hpp).
Agreed agree(const LoopSettings& settings, const tasks::TaskOutcome& outcome, bool cut_short)
{
    const bool ok = outcome.status == io::TaskStatus::ok;
    const bool stop = settings.stopping() || cut_short;
    if (!in_group(settings)) return {ok, stop, ok ? -1 : 0, outcome.exit_code};
    auto& group = *settings.group;
    const std::array<std::int32_t, 3> mine{ok ? 1 : 0, outcome.exit_code, stop ? 1 : 0};
    std::vector<std::int32_t> all(mine.size() * static_cast<size_t>(group.size()));
    group.allgather(std::span<const std::int32_t>(mine), std::span<std::int32_t>(all));
    Agreed agreed;
    for (int m = 0; m < group.size(); ++m) {
        agreed.stop = agreed.stop || all[3 * m + 2] != 0;
        if (agreed.first_failed < 0 && all[3 * m] == 0) {
            agreed.first_failed = m;
            agreed.exit_code = all[3 * m + 1];
        }
    }
    agreed.all_ok = agreed.first_failed < 0;
    return agreed;
}

/** The task's accounting covers every attempt: CPU seconds add up, the peak is the largest. */
void add_usage(const tasks::TaskOutcome& outcome, AttemptsEnd& end)
{
    if (!std::isnan(outcome.cpu_time)) end.cpu_time = (std::isnan(end.cpu_time) ? 0.0 : end.cpu_time) + outcome.cpu_time;
    end.mem_peak = std::max(end.mem_peak, outcome.mem_peak);
}

}  // namespace

AttemptsEnd run_attempts(const LoopSettings& settings, tasks::TaskContext& context, const std::string& device_problem)
{
    const bool grouped = in_group(settings);
    // In a group only the leader's values are recorded, so only the leader's are checked.
    const bool checks_values = !grouped || settings.group->rank() == 0;
    AttemptsEnd end;
    auto& outcome = end.outcome;
    double startup_seconds = 0;
    for (context.attempt = 1; context.attempt <= settings.retries + 1; ++context.attempt) {
        const double started = unix_now();
        // Quarantine watches a rank alone on its GPU; a group's members would have to agree on it first.
        auto* const health = grouped ? nullptr : settings.health;
        const auto faults_before = health != nullptr ? health->before(context.device) : gpu::DeviceFaultEvents{};
        try {
            outcome = run_kind(settings, context, device_problem);
        } catch (const collectives::CollectiveStall& stall) {
            if (grouped) throw;  // the group cannot go on without the missing member: the job ends, naming it
            outcome = tasks::TaskOutcome::failure(1, stall.what());
        } catch (const tasks::RankFatalError&) {
            throw;  // the kind can run nothing more here; run_rank_loop ends the rank
        } catch (const std::exception& error) {
            outcome = tasks::TaskOutcome::failure(1, error.what());
        }
        add_usage(outcome, end);
        if (outcome.status == io::TaskStatus::ok && checks_values) {
            if (auto problem = shape_problem(outcome.values, settings.fields); !problem.empty()) {
                outcome = tasks::TaskOutcome::failure(0, std::move(problem));
            }
        }
        std::string fault = health != nullptr ? health->after(context.device, faults_before, outcome) : std::string();
        // Before agreeing or retrying: the stop's signal may kill the task before it reaches this rank.
        const auto agreed = agree(settings, outcome, cut_short_by_stop_signal(settings, outcome));
        end.stop = agreed.stop;
        if (!agreed.all_ok && outcome.status == io::TaskStatus::ok) {
            outcome = tasks::TaskOutcome::failure(
                agreed.exit_code, fmt::format("group member {} failed (exit code {})", agreed.first_failed, agreed.exit_code));
        }
        const bool ok = outcome.status == io::TaskStatus::ok;
        // A worker's load is the rank's start-up: the attempt begins when the worker said ready.
        const double began = outcome.began.value_or(started);
        startup_seconds += outcome.startup_seconds;
        if (end.attempts.empty() && outcome.began) end.began = began;
        end.attempts.push_back(io::AttemptRecord{context.attempt_number(), outcome.exit_code, began,
                                                 unix_now(), settings.rank, ok ? std::string() : outcome.message,
                                                 settings.host});
        if (agreed.all_ok) break;
        // Its failing rows were found by splitting the chunk, each run alone: the chunk again would fail them again.
        if (!outcome.row_failures.empty()) break;
        if (!fault.empty()) {
            end.device_fault = std::move(fault);  // the GPU failed, not the task: not retried here
            break;
        }
        // A member without the GPU its task asks for fails each attempt at once: members retry
        // together, as giving up early would need one more agreement. Alone, it gives up now.
        if (agreed.stop || (!grouped && !device_problem.empty())) break;
        // 126 (cannot execute) and 127 (not found): the same program would not run on the next
        // attempt either, and a missing program fails every task alike (issue 35, point 6).
        const int code = grouped ? agreed.exit_code : outcome.exit_code;
        if (code == process::exit_cannot_execute || code == process::exit_not_found) break;
    }
    context.attempt = std::min(context.attempt, settings.retries + 1);
    outcome.startup_seconds = startup_seconds;
    // A stop that came during the last attempt counts too (it ended it, or will end the rank's loop).
    if (!grouped) end.stop = end.stop || settings.stopping();
    return end;
}

}  // namespace shardrun::run
