#include "runner/run/report/summary.hpp"

#include "io/layout/gpu_check_json.hpp"
#include "io/layout/output_layout.hpp"
#include "runner/job/duration.hpp"
#include "runner/run/interrupt.hpp"
#include "runner/run/report/summary_advice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
#include <nlohmann/json.hpp>

namespace shardrun::run {
namespace {

nlohmann::json to_json(const RankStats& stats)
{
    auto failures = nlohmann::json::array();
    for (const auto& f : stats.failures) {
        failures.push_back({{"task_id", f.task_id}, {"exit_code", f.exit_code}, {"message", f.message}});
        if (!f.stderr_tail.empty()) failures.back()["stderr_tail"] = f.stderr_tail;  // a remote output's only
    }
    auto slowest = nlohmann::json::array(), cut_short = nlohmann::json::array();
    for (const auto& [seconds, id] : stats.slowest) slowest.push_back({{"task_id", id}, {"seconds", seconds}});
    for (const auto& [seconds, id] : stats.cut_short) cut_short.push_back({{"task_id", id}, {"seconds", seconds}});
    nlohmann::json j = {{"rank", stats.rank}, {"ok", stats.ok}, {"failed", stats.failed}, {"already_done", stats.already_done},
            {"interrupted", stats.interrupted}, {"signal", stats.signal}, {"drain_ran_out", stats.drain_ran_out},
            {"busy_seconds", stats.busy_seconds}, {"last_task_end", stats.last_task_end}, {"final_commit_seconds", stats.final_commit_seconds}, {"startup_seconds", stats.startup_seconds},
            {"cpu_seconds", stats.cpu_seconds}, {"measured_tasks", stats.measured_tasks}, {"mem_peak", stats.mem_peak}, {"slowest", slowest}, {"cut_short", cut_short}, {"failures", failures}};
    if (!stats.quarantine.empty()) j["quarantine"] = stats.quarantine;  // issue 26: a GPU taken out of the job
    if (!stats.nan_results.empty()) j["nan_results"] = stats.nan_results;
    if (!stats.gpu_checks.empty()) j["gpu_checks"] = io::gpu_checks_json(stats.gpu_checks);  // issue 38: admission
    return j;
}

RankStats from_json(const nlohmann::json& j)
{
    RankStats stats;
    stats.rank = j["rank"];
    stats.ok = j["ok"];
    stats.failed = j["failed"];
    stats.already_done = j["already_done"];
    stats.interrupted = j["interrupted"];
    stats.signal = j["signal"];
    stats.drain_ran_out = j["drain_ran_out"];
    stats.busy_seconds = j["busy_seconds"];
    stats.last_task_end = j["last_task_end"];
    stats.final_commit_seconds = j["final_commit_seconds"];
    stats.startup_seconds = j["startup_seconds"];
    stats.cpu_seconds = j["cpu_seconds"];
    stats.measured_tasks = j["measured_tasks"];
    stats.mem_peak = j["mem_peak"];
    for (const auto& s : j["slowest"]) stats.slowest.emplace_back(s["seconds"], s["task_id"]);
    for (const auto& s : j["cut_short"]) stats.cut_short.emplace_back(s["seconds"], s["task_id"]);
    for (const auto& f : j["failures"]) {
        stats.failures.push_back({f["task_id"], f["exit_code"], f["message"]});
        if (f.contains("stderr_tail")) stats.failures.back().stderr_tail = f["stderr_tail"].get<std::vector<std::string>>();
    }
    if (j.contains("quarantine")) stats.quarantine = j["quarantine"];
    if (j.contains("nan_results")) stats.nan_results = j["nan_results"].get<std::map<std::string, std::uint64_t>>();
    if (j.contains("gpu_checks")) stats.gpu_checks = io::gpu_checks_from_json(j["gpu_checks"]);
    return stats;
}

struct Aggregate {
    std::uint64_t ok = 0, failed = 0, already_done = 0, interrupted = 0;
    double cpu_seconds = 0;           ///< /tasks/cpu_time summed over the measured tasks
    std::uint64_t measured_tasks = 0;
    std::int64_t mem_peak = -1;       ///< the largest /tasks/mem_peak
    std::vector<std::string> signals;  ///< "SIGTERM to rank 1", in rank order
    bool drain_ran_out = false;
    double busy_min = 0, busy_max = 0, busy_mean = 0;
    std::vector<std::pair<double, std::uint64_t>> slowest;
    std::vector<std::pair<double, std::uint64_t>> cut_short;  ///< the longest interrupted task first
    std::vector<FailedTask> failures;
    std::map<std::string, std::uint64_t> nan_results;  ///< per scalar float field: ok tasks that returned NaN
};

Aggregate aggregate(const std::vector<RankStats>& ranks)
{
    Aggregate all;
    all.busy_min = ranks.empty() ? 0 : ranks.front().busy_seconds;
    for (const auto& r : ranks) {
        all.ok += r.ok;
        all.failed += r.failed;
        all.already_done += r.already_done;
        all.interrupted += r.interrupted;
        all.cpu_seconds += r.cpu_seconds;
        all.measured_tasks += r.measured_tasks;
        all.mem_peak = std::max(all.mem_peak, r.mem_peak);
        if (r.signal != 0) all.signals.push_back(fmt::format("{} to rank {}", signal_name(r.signal), r.rank));
        all.drain_ran_out = all.drain_ran_out || r.drain_ran_out;
        all.busy_min = std::min(all.busy_min, r.busy_seconds);
        all.busy_max = std::max(all.busy_max, r.busy_seconds);
        all.busy_mean += r.busy_seconds / static_cast<double>(ranks.size());
        all.slowest.insert(all.slowest.end(), r.slowest.begin(), r.slowest.end());
        all.cut_short.insert(all.cut_short.end(), r.cut_short.begin(), r.cut_short.end());
        all.failures.insert(all.failures.end(), r.failures.begin(), r.failures.end());
        for (const auto& [name, count] : r.nan_results) all.nan_results[name] += count;
    }
    std::sort(all.slowest.begin(), all.slowest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (all.slowest.size() > 5) all.slowest.resize(5);
    std::sort(all.cut_short.begin(), all.cut_short.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::sort(all.failures.begin(), all.failures.end(), [](const auto& a, const auto& b) { return a.task_id < b.task_id; });
    return all;
}

/** `shardrun merge <path>`, the path quoted for a shell when it needs it. */
std::string merge_command(const std::string& path)
{
    const bool plain = std::all_of(path.begin(), path.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_-./=:,+@%").find(c) != std::string_view::npos;
    });
    return "shardrun merge " + (plain ? path : "'" + path + "'");
}

// One element of an array job has no master file yet: name what it wrote and how to join it.
// The element's folder as the user names the output (a bucket URL stays one): <output>.shards/a<i>/.
std::string element_folder(const RunTotals& totals)
{
    return io::layout::element_dir(totals.output_path, static_cast<int>(totals.array_index)).string() + "/";
}

// "finished", unless the run was interrupted or its bucket did not get everything (issue 34).
std::string ending_word(const RunTotals& totals)
{
    return totals.interrupted ? "INTERRUPTED" : totals.bucket_note.empty() ? "finished" : "NOT ALL IN THE BUCKET";
}

std::string element_lines(const RunTotals& totals)
{
    std::string out = fmt::format("  array element {} of {} {} (indices 0..{})\n", totals.array_index,
                                  totals.array_count, ending_word(totals),
                                  totals.array_count - 1);
    if (totals.output_path.empty()) return out;
    if (!totals.bucket_note.empty()) return out + "  " + bucket_hint(totals.exit_code) + "\n";  // nothing to merge yet
    if (totals.merged_exists) {
        // A rerun of an element already merged (a cloud array's last element merges itself).
        out += fmt::format("  its results: {} ({} holds the elements merged before this run)\n", element_folder(totals),
                           totals.output_path);
        out += fmt::format("  to merge again, when all {} elements have finished: {}\n", totals.array_count,
                           merge_command(totals.output_path));
        return out;
    }
    out += fmt::format("  its results: {} ({} does not exist until the elements are merged)\n",
                       element_folder(totals), totals.output_path);
    out += fmt::format("  when all {} elements have finished: {}\n", totals.array_count, merge_command(totals.output_path));
    return out;
}

// What stopped the run, in the words of README's "Stopping a run": the signals by name and
// the rank each reached (a USR1 is not assumed to be Slurm's time limit).
std::string stop_cause(const Aggregate& all)
{
    std::string cause = all.signals.empty() ? std::string("a stop request")
                                            : fmt::format("{}", fmt::join(all.signals.begin(),
                                                                          all.signals.begin() + std::min<std::size_t>(3, all.signals.size()), ", "));
    if (all.signals.size() > 3) cause += fmt::format(" and {} more", all.signals.size() - 3);
    if (all.drain_ran_out) cause += ", then drain_timeout ran out";
    return cause;
}

// "3 ok, 1 failed, 2 interrupted, 4 not started, 5 already done": the states of README's
// "Task states"; the last three only when there are any.
std::string counts_text(const RunTotals& totals, const Aggregate& all)
{
    std::string text = fmt::format("{} ok, {} failed", all.ok, all.failed);
    if (all.interrupted > 0) text += fmt::format(", {} interrupted", all.interrupted);
    const auto accounted = all.ok + all.failed + all.interrupted + all.already_done;
    if (totals.tasks > accounted) text += fmt::format(", {} not started", totals.tasks - accounted);
    if (all.already_done > 0) text += fmt::format(", {} already done", all.already_done);
    return text;
}

// Exec workers' load (spawn to ready line) is the ranks' start-up, kept out of the tasks' seconds.
std::string startup_line(const std::vector<RankStats>& ranks)
{
    double low = 0, high = 0;
    bool any = false;
    for (const auto& r : ranks) {
        if (r.startup_seconds <= 0) continue;
        low = any ? std::min(low, r.startup_seconds) : r.startup_seconds;
        high = std::max(high, r.startup_seconds);
        any = true;
    }
    if (!any) return "";
    return fmt::format("  worker start-up per rank: min {:.2f} s, max {:.2f} s (not counted in the tasks' seconds)\n", low, high);
}

/**
 * What to do after fail_fast or max_failures stopped a run. A fixed job file is a changed job,
 * which --resume refuses (it may only add sweep values): so the advice names both fixes.
 */
std::string failure_stop_advice()
{
    return "committed results are kept; once the program or its environment is fixed, --resume reruns the failed "
           "tasks and runs those not started; a change to the job file (exec.argv, params) needs --force, which "
           "reruns every task, or a new output.path";
}

/** The summary's NO PROGRESS line (no newline): what was cut short, and why a requeue cannot help. */
std::string no_progress_line(const RunTotals& totals, const Aggregate& all)
{
    // A requeue would start the same task again and cut it short again (issue 35, point 1).
    const auto what = all.cut_short.empty()
                          ? std::string("the drain came before any task started")
                          : fmt::format("task #{} ran {} and was cut short by the drain", all.cut_short.front().second,
                                        job::duration_text(all.cut_short.front().first));
    // The time limit to raise is the launcher's own: Slurm's --time, the cloud job's timeout; mpirun has none.
    return fmt::format("NO PROGRESS: no task finished in this run; {}. Running it again with as little time "
                       "cannot finish it: {}checkpoint inside the task, or split it into smaller tasks (data.chunk, "
                       "more sweep points)",
                       what, more_time_advice(totals.scheduler));
}

}  // namespace

std::vector<RankStats> gather_stats(collectives::Communicator& world, const RankStats& mine)
{
    const auto texts = collectives::allgather_strings(world, to_json(mine).dump());
    std::vector<RankStats> stats;
    if (world.rank() != 0) return stats;
    for (const auto& text : texts) stats.push_back(from_json(nlohmann::json::parse(text)));
    return stats;
}

std::string format_summary(const RunTotals& totals, const std::vector<RankStats>& ranks)
{
    const auto all = aggregate(ranks);
    std::string out = fmt::format("shardrun: {} {} in {:.2f} s: {} of {} tasks\n", totals.job_name,
                                  ending_word(totals), totals.wall_seconds,
                                  counts_text(totals, all), totals.tasks);
    // Only when a task ran in this run (a cut-short one counts its time): 0.00 s would say nothing.
    if (all.ok + all.failed + all.interrupted > 0) {
        out += fmt::format("  busy per rank: min {:.2f} s, mean {:.2f} s, max {:.2f} s; imbalance {:.2f} (max/mean)\n",
                           all.busy_min, all.busy_mean, all.busy_max,
                           all.busy_mean > 0 ? all.busy_max / all.busy_mean : 1.0);
    }
    if (auto startup = startup_line(ranks); !startup.empty()) out += startup;
    if (all.measured_tasks > 0) {
        out += fmt::format("  CPU time of {} measured tasks: {:.2f} s; largest peak memory of one: {:.1f} MB (/tasks/cpu_time, mem_peak)\n",
                           all.measured_tasks, all.cpu_seconds, static_cast<double>(all.mem_peak) / 1e6);
    }
    if (!all.slowest.empty()) {
        std::vector<std::string> slow;
        for (const auto& [seconds, id] : all.slowest) slow.push_back(fmt::format("#{} {:.3f} s", id, seconds));
        out += fmt::format("  slowest: {}\n", fmt::join(slow, ", "));
    }
    if (!all.nan_results.empty()) {
        // A NaN metric is a task that "succeeded" with nothing to show (a diverged loss): counted, not hidden.
        std::vector<std::string> fields;
        for (const auto& [name, count] : all.nan_results) fields.push_back(fmt::format("{} in {} task{}", name, count, count == 1 ? "" : "s"));
        out += fmt::format("  NaN results: {} (recorded ok, with NaN stored)\n", fmt::join(fields, ", "));
    }
    out += end_phases_line(totals.end_phases);
    for (size_t i = 0; i < all.failures.size() && i < 20; ++i) {
        const auto& f = all.failures[i];
        out += fmt::format("  failed #{}: exit {}: {}\n", f.task_id, f.exit_code, f.message);
    }
    if (all.failures.size() > 20) out += fmt::format("  ... and {} more failed tasks\n", all.failed - 20);
    for (const auto& rank : ranks) {
        if (!rank.quarantine.empty()) out += fmt::format("  rank {}: {}\n", rank.rank, rank.quarantine);
    }
    if (totals.budget_stop) {
        out += fmt::format("  {}\n", totals.stop_reason);  // it ends with the one way to go on: a raised budget
    } else if (!totals.stop_reason.empty()) {
        // --resume refuses a changed job file (only added sweep values): the advice says which fix takes which.
        out += fmt::format("  {}; {}\n", totals.stop_reason, failure_stop_advice());
    }
    if (totals.interrupted && !totals.budget_stop) {
        out += fmt::format("  interrupted by {}: committed tasks are kept; run again with --resume to finish\n",
                           stop_cause(all));
    }
    if (!totals.bucket_note.empty()) out += "  " + totals.bucket_note + "\n";
    if (totals.no_progress) out += "  " + no_progress_line(totals, all) + "\n";
    if (totals.array_count > 1) {
        out += element_lines(totals);
    } else if (!totals.output_path.empty() && !totals.bucket_note.empty()) {
        out += "  " + bucket_hint(totals.exit_code) + "\n";  // not readable as results: no report to draw
    } else if (!totals.output_path.empty() && !totals.results_written) {
        // A stopped run writes no results file: naming one that is not there sent users looking for it.
        out += fmt::format("  committed so far: shardrun status {} (the results file is written once every task has "
                           "ended; --resume gets there)\n",
                           totals.output_path);
        out += fmt::format("  picture: shardrun report {}\n", totals.output_path);
    } else if (!totals.output_path.empty()) {
        out += fmt::format("  results: {}\n", totals.output_path);
        out += fmt::format("  picture: shardrun report {}\n", totals.output_path);
    }
    if (totals.launcher_banner_follows) {
        out += fmt::format("  (mpirun's note below only repeats exit code {}; `mpirun -q` leaves this summary last)\n",
                           totals.exit_code);
    }
    return out;
}

std::string quiet_summary_line(const RunTotals& totals, const std::vector<RankStats>& ranks)
{
    if (!totals.stop_reason.empty()) return totals.stop_reason;
    if (!totals.interrupted) return "";
    // A stop's words from the summary, with how much is left, since that is all -q prints.
    const auto all = aggregate(ranks);
    const auto accounted = all.ok + all.failed + all.already_done;
    const auto pending = totals.tasks > accounted ? totals.tasks - accounted : 0;
    if (pending == 0) return "";  // a drain that came after the last task: nothing to resume
    // --resume with as little time would only cut the same task short again: the line says what helps.
    if (totals.no_progress) {
        return fmt::format("{} stopped by {}: {} of {} tasks pending; {}", totals.job_name, stop_cause(all), pending,
                           totals.tasks, no_progress_line(totals, all));
    }
    return fmt::format("{} stopped by {}: {} of {} tasks pending (interrupted or not started); committed tasks are "
                       "kept; run again with --resume to finish",
                       totals.job_name, stop_cause(all), pending, totals.tasks);
}

std::string summary_json(const RunTotals& totals, const std::vector<RankStats>& ranks)
{
    const auto all = aggregate(ranks);
    auto per_rank = nlohmann::json::array();
    for (const auto& r : ranks) per_rank.push_back(to_json(r));
    nlohmann::json summary = {{"event", "summary"}, {"job", totals.job_name}, {"tasks", totals.tasks},
                              {"ok", all.ok}, {"failed", all.failed}, {"interrupted", all.interrupted},
                              {"already_done", all.already_done},
                              {"exit_code", totals.exit_code}, {"wall_seconds", totals.wall_seconds},
                              {"output", totals.output_path}, {"ranks", per_rank},
                              {"cpu_seconds", all.cpu_seconds}, {"measured_tasks", all.measured_tasks},
                              {"mem_peak", all.mem_peak}};
    if (!totals.end_phases.empty()) {
        auto phases = nlohmann::json::array();
        double seconds = 0;
        for (const auto& phase : totals.end_phases) {
            phases.push_back({{"phase", phase.name}, {"seconds", phase.seconds}});
            if (phase.bytes > 0) phases.back()["bytes"] = phase.bytes;
            seconds += phase.seconds;
        }
        summary["end"] = {{"seconds", seconds}, {"phases", phases}};
    }
    if (!totals.bucket_note.empty()) summary["bucket"] = totals.bucket_note;
    if (!all.nan_results.empty()) summary["nan_results"] = all.nan_results;
    // "stopped": why the run ended early, when it did (a signal, or its failures).
    if (!totals.stop_reason.empty()) {
        summary["stopped"] = totals.stop_reason;
    } else if (totals.interrupted) {
        summary["stopped"] = "interrupted by " + stop_cause(all);
    }
    if (totals.array_count > 1) {
        summary["array_index"] = totals.array_index;
        summary["array_count"] = totals.array_count;
        summary["element_output"] = element_folder(totals);
        summary["merge_command"] = merge_command(totals.output_path);
    }
    return summary.dump();
}

}  // namespace shardrun::run
