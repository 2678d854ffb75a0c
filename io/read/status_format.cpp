// Printing a StatusReport: a table for people, JSON for scripts.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "io/layout/output_layout.hpp"
#include "io/read/live_snapshot.hpp"
#include "io/read/status_report.hpp"

namespace shardrun::io {
namespace {

std::string join(const std::vector<int>& values)
{
    std::string text;
    for (const int value : values) text += (text.empty() ? "" : ",") + std::to_string(value);
    return text;
}

std::string merge_command(const std::string& path)
{
    const bool plain = std::all_of(path.begin(), path.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_-./=:,+@%").find(c) != std::string_view::npos;
    });
    return "shardrun merge " + (plain ? path : "'" + path + "'");
}

/** Elements 0..count-1 that are neither missing, running nor unfinished. */
std::vector<int> finished_elements(const StatusReport& report)
{
    std::vector<int> finished;
    const auto in = [](const std::vector<int>& list, int index) {
        return std::find(list.begin(), list.end(), index) != list.end();
    };
    for (int index = 0; index < report.array_count; ++index) {
        if (!in(report.missing_elements, index) && !in(report.running_elements, index) &&
            !in(report.unfinished_elements, index) && !in(report.mismatched_elements, index)) {
            finished.push_back(index);
        }
    }
    return finished;
}

// An array job's outputs live in per-element shard folders until `shardrun merge` joins them.
void element_lines(std::ostringstream& out, const StatusReport& report)
{
    const auto finished = finished_elements(report);
    const auto count = report.array_count;
    // After a merge the elements' own files are gone: pointing at their folders sent users looking (trial 41b).
    const auto& merged_ones = report.consolidated_elements;
    const bool merged = !finished.empty() && std::all_of(finished.begin(), finished.end(), [&](int index) {
        return std::find(merged_ones.begin(), merged_ones.end(), index) != merged_ones.end();
    });
    if (merged && finished.size() == 1) {
        out << "  array element " << finished.front() << " of " << count << " finished; its results are in the merged file\n";
    } else if (merged) {
        out << "  array elements finished: " << finished.size() << " of " << count << " (" << join(finished)
            << "); their results are in the merged file\n";
    } else if (finished.size() == 1) {
        out << "  array element " << finished.front() << " of " << count << " finished; its results: "
            << layout::element_dir(report.path, finished.front()).string() << "/\n";
    } else {
        out << "  array elements finished: " << finished.size() << " of " << count
            << (finished.empty() ? "" : " (" + join(finished) + ")") << "; their results: "
            << (layout::shards_dir(report.path) / layout::element_name("<index>")).string() << "/\n";
    }
    const bool all = static_cast<int>(finished.size()) == count && report.mismatched_elements.empty();
    if (std::filesystem::exists(report.path)) {
        out << "  merged file: " << report.path << " (merge again after an element reruns: "
            << merge_command(report.path) << ")\n";
    } else {
        out << "  " << report.path << " does not exist until the elements are merged; "
            << (all ? "all have finished, merge them: " : "when all " + std::to_string(count) + " have finished: ")
            << merge_command(report.path) << "\n";
    }
}

/** `status --by-host`: one row per host; a mean task time far above the others' is a slow node. */
void host_lines(std::ostringstream& out, const StatusReport& report)
{
    if (report.hosts.empty()) return;  // nothing committed yet: a header over no row says nothing
    out << "  host                       ranks        ok    failed    busy (s)   mean task (s)\n";
    for (const auto& host : report.hosts) {
        const auto tasks = host.ok + host.failed;
        char line[160];
        std::snprintf(line, sizeof line, "  %-25s  %5d  %8llu  %8llu  %10.1f  %14.3f\n",
                      host.host.empty() ? "(unknown)" : host.host.c_str(), host.ranks,
                      static_cast<unsigned long long>(host.ok), static_cast<unsigned long long>(host.failed),
                      host.busy_seconds, tasks > 0 ? host.busy_seconds / static_cast<double>(tasks) : 0.0);
        out << line;
    }
}

}  // namespace

std::string status_text(const StatusReport& report, bool by_host)
{
    std::ostringstream out;
    // The words of README's "Task states": pending is what --resume runs; `skipped` (a status
    // value older outputs may hold, never written now) is shown only where a file has some.
    const bool any_skipped = report.skipped > 0;
    // The line every reader of a running job prints (live_snapshot.hpp); status puts it first.
    if (report.running()) out << running_line(report.committed(), report.task_count) << "\n";
    for (const auto& reason : report.unreadable) out << "running, not read: " << reason << "\n";
    out << report.path << ": " << report.task_count << " tasks, " << report.array_count << " array element(s): "
        << report.ok << " ok, " << report.failed << " failed, ";
    if (any_skipped) out << report.skipped << " skipped, ";
    out << report.pending << " pending — " << (report.complete ? "complete" : report.unmerged ? "NOT merged" : "NOT complete") << "\n";
    if (by_host) host_lines(out, report);
    // Rows are the ranks that committed a task; before any commit there are none, and no header either.
    if (!by_host && !report.ranks.empty()) {
        out << "  element  rank        ok    failed" << (any_skipped ? "   skipped" : "") << "\n";
    }
    for (const auto& row : by_host ? std::vector<RankCounts>{} : report.ranks) {
        char line[96];
        std::snprintf(line, sizeof line, "  %7d  %4d  %8llu  %8llu", row.array_index, row.rank,
                      static_cast<unsigned long long>(row.ok), static_cast<unsigned long long>(row.failed));
        out << line;
        if (any_skipped) {
            std::snprintf(line, sizeof line, "  %8llu", static_cast<unsigned long long>(row.skipped));
            out << line;
        }
        out << "\n";
    }
    if (!report.missing_elements.empty()) out << "  missing array elements: " << join(report.missing_elements) << "\n";
    for (const auto& [index, note] : report.stopped_elements) {
        out << "  array element " << index << " started, and was " << note << ": nothing of it was committed; run it "
            << "(--array-index " << index << "), then merge\n";
    }
    if (!report.running_elements.empty()) out << "  running array elements: " << join(report.running_elements) << "\n";
    if (!report.unfinished_elements.empty()) {
        out << "  unfinished array elements (rerun with --resume): " << join(report.unfinished_elements) << "\n";
    }
    for (const auto& line : report.unfinished_runs) out << "  " << line << "\n";
    for (const auto& problem : report.unreadable_segments) {
        out << "  not read: " << problem << " (run --resume moves it aside and runs them again)\n";
    }
    if (report.master_missing) {
        // The line above (when there is one) says why the run ended; this one, what is missing.
        out << "  the results file " << report.path << " is missing: every task is committed, but the run ended "
            << "before it wrote the file; `shardrun run JOB --resume` writes it\n";
    }
    for (const auto& problem : report.element_problems) {
        out << "  does not belong (not counted; merge refuses it): " << problem << "; rerun that element with this "
            << "job and --array-count (--force), or delete its folder\n";
    }
    if (!report.master_problem.empty()) {
        out << "  the results file cannot be opened: " << report.master_problem
            << "; rebuild it from the shards with " << merge_command(report.path) << "\n";
    }
    if (report.array_count > 1) element_lines(out, report);
    for (const auto& line : report.scheduler) out << "  scheduler: " << line << "\n";
    for (const auto& line : report.quarantined) out << "  GPU out of the job: " << line << "\n";
    for (const auto& task : report.failed_tasks) {
        out << "  failed task " << task.task_id << " (element " << task.array_index << ", rank " << task.rank
            << ", exit code " << task.exit_code << ", " << task.attempts << (task.attempts == 1 ? " attempt" : " attempts")
            << ")" << (task.message.empty() ? "" : ": " + task.message) << "\n";
        if (!task.logs.empty()) {
            out << "    logs:";
            for (const auto& file : task.logs) out << " " << file;
            out << "\n";
        }
        for (const auto& line : task.stderr_tail) out << "    | " << line << "\n";
    }
    return out.str();
}

std::string status_json(const StatusReport& report)
{
    nlohmann::json ranks = nlohmann::json::array(), failed = nlohmann::json::array();
    for (const auto& row : report.ranks) {
        ranks.push_back({{"array_index", row.array_index}, {"rank", row.rank}, {"ok", row.ok},
                         {"failed", row.failed}, {"skipped", row.skipped}});
    }
    nlohmann::json hosts = nlohmann::json::array();
    for (const auto& host : report.hosts) {
        hosts.push_back({{"host", host.host}, {"ranks", host.ranks}, {"ok", host.ok}, {"failed", host.failed},
                         {"busy_seconds", host.busy_seconds}});
    }
    for (const auto& task : report.failed_tasks) {
        failed.push_back({{"task_id", task.task_id}, {"array_index", task.array_index}, {"rank", task.rank},
                          {"exit_code", task.exit_code}, {"attempts", task.attempts}, {"message", task.message},
                          {"logs", task.logs}, {"stderr_tail", task.stderr_tail}});
    }
    // Keyed by the element's index as text (JSON keys are strings): {"3": "stopped (SIGTERM) ..."}.
    nlohmann::json stopped = nlohmann::json::object();
    for (const auto& [index, note] : report.stopped_elements) stopped[std::to_string(index)] = note;
    nlohmann::json j{{"path", report.path},         {"task_count", report.task_count},
                     {"master_problem", report.master_problem},
                     {"master_missing", report.master_missing},
                     {"unmerged", report.unmerged},
                     {"array_count", report.array_count}, {"ok", report.ok},
                     {"failed", report.failed},     {"skipped", report.skipped},
                     {"pending", report.pending},   {"complete", report.complete},
                     {"ranks", ranks},              {"hosts", hosts},
                     {"failed_tasks", failed},
                     {"missing_elements", report.missing_elements},
                     {"stopped_elements", stopped},
                     {"running_elements", report.running_elements},
                     {"running", report.running()},
                     {"committed", report.committed()},
                     {"unreadable", report.unreadable},
                     {"unfinished_elements", report.unfinished_elements},
                     {"unfinished_runs", report.unfinished_runs},
                     {"unreadable_segments", report.unreadable_segments},
                     {"mismatched_elements", report.mismatched_elements},
                     {"element_problems", report.element_problems},
                     {"quarantined", report.quarantined},
                     {"scheduler", report.scheduler}};
    if (report.array_count > 1) {
        j["finished_elements"] = finished_elements(report);
        j["merge_command"] = merge_command(report.path);
    }
    return j.dump() + "\n";
}

}  // namespace shardrun::io
