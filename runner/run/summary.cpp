#include "runner/run/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <nlohmann/json.hpp>

namespace shardrun::run {
namespace {

nlohmann::json to_json(const RankStats& stats)
{
    auto failures = nlohmann::json::array();
    for (const auto& f : stats.failures) failures.push_back({{"task_id", f.task_id}, {"exit_code", f.exit_code}, {"message", f.message}});
    auto slowest = nlohmann::json::array();
    for (const auto& [seconds, id] : stats.slowest) slowest.push_back({{"task_id", id}, {"seconds", seconds}});
    return {{"rank", stats.rank}, {"ok", stats.ok}, {"failed", stats.failed}, {"skipped", stats.skipped},
            {"busy_seconds", stats.busy_seconds}, {"slowest", slowest}, {"failures", failures}};
}

RankStats from_json(const nlohmann::json& j)
{
    RankStats stats;
    stats.rank = j["rank"];
    stats.ok = j["ok"];
    stats.failed = j["failed"];
    stats.skipped = j["skipped"];
    stats.busy_seconds = j["busy_seconds"];
    for (const auto& s : j["slowest"]) stats.slowest.emplace_back(s["seconds"], s["task_id"]);
    for (const auto& f : j["failures"]) stats.failures.push_back({f["task_id"], f["exit_code"], f["message"]});
    return stats;
}

struct Aggregate {
    std::uint64_t ok = 0, failed = 0, skipped = 0;
    double busy_min = 0, busy_max = 0, busy_mean = 0;
    std::vector<std::pair<double, std::uint64_t>> slowest;
    std::vector<FailedTask> failures;
};

Aggregate aggregate(const std::vector<RankStats>& ranks)
{
    Aggregate all;
    all.busy_min = ranks.empty() ? 0 : ranks.front().busy_seconds;
    for (const auto& r : ranks) {
        all.ok += r.ok;
        all.failed += r.failed;
        all.skipped += r.skipped;
        all.busy_min = std::min(all.busy_min, r.busy_seconds);
        all.busy_max = std::max(all.busy_max, r.busy_seconds);
        all.busy_mean += r.busy_seconds / static_cast<double>(ranks.size());
        all.slowest.insert(all.slowest.end(), r.slowest.begin(), r.slowest.end());
        all.failures.insert(all.failures.end(), r.failures.begin(), r.failures.end());
    }
    std::sort(all.slowest.begin(), all.slowest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (all.slowest.size() > 5) all.slowest.resize(5);
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
std::string element_lines(const RunTotals& totals)
{
    std::string out = fmt::format("  array element {} of {} {} (indices 0..{})\n", totals.array_index,
                                  totals.array_count, totals.interrupted ? "INTERRUPTED" : "finished",
                                  totals.array_count - 1);
    if (totals.output_path.empty()) return out;
    out += fmt::format("  its results: {}.shards/a{}/ ({} does not exist until the elements are merged)\n",
                       totals.output_path, totals.array_index, totals.output_path);
    out += fmt::format("  when all {} elements have finished: {}\n", totals.array_count, merge_command(totals.output_path));
    return out;
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
    std::string out = fmt::format("shardrun: {} {} in {:.2f} s: {} ok, {} failed, {} skipped of {} tasks\n", totals.job_name,
                                  totals.interrupted ? "INTERRUPTED" : "finished", totals.wall_seconds, all.ok,
                                  all.failed, all.skipped, totals.tasks);
    out += fmt::format("  busy per rank: min {:.2f} s, mean {:.2f} s, max {:.2f} s; imbalance {:.2f} (max/mean)\n",
                       all.busy_min, all.busy_mean, all.busy_max, all.busy_mean > 0 ? all.busy_max / all.busy_mean : 1.0);
    if (!all.slowest.empty()) {
        std::vector<std::string> slow;
        for (const auto& [seconds, id] : all.slowest) slow.push_back(fmt::format("#{} {:.3f} s", id, seconds));
        out += fmt::format("  slowest: {}\n", fmt::join(slow, ", "));
    }
    for (size_t i = 0; i < all.failures.size() && i < 20; ++i) {
        const auto& f = all.failures[i];
        out += fmt::format("  failed #{}: exit {}: {}\n", f.task_id, f.exit_code, f.message);
    }
    if (all.failures.size() > 20) out += fmt::format("  ... and {} more failed tasks\n", all.failed - 20);
    if (!totals.stop_reason.empty()) {
        out += fmt::format("  {}; committed results are kept; fix the cause, then run again (--resume runs the tasks "
                           "not started, --force starts over)\n",
                           totals.stop_reason);
    }
    if (totals.interrupted) out += "  interrupted: committed tasks are kept; run again with --resume to finish\n";
    if (totals.array_count > 1) {
        out += element_lines(totals);
    } else if (!totals.output_path.empty()) {
        out += fmt::format("  results: {}\n", totals.output_path);
        out += fmt::format("  picture: shardrun report {}\n", totals.output_path);
    }
    return out;
}

std::string summary_json(const RunTotals& totals, const std::vector<RankStats>& ranks)
{
    const auto all = aggregate(ranks);
    auto per_rank = nlohmann::json::array();
    for (const auto& r : ranks) per_rank.push_back(to_json(r));
    nlohmann::json summary = {{"event", "summary"}, {"job", totals.job_name}, {"tasks", totals.tasks},
                              {"ok", all.ok}, {"failed", all.failed}, {"skipped", all.skipped},
                              {"interrupted", totals.interrupted}, {"wall_seconds", totals.wall_seconds},
                              {"output", totals.output_path}, {"ranks", per_rank}};
    if (!totals.stop_reason.empty()) summary["stopped"] = totals.stop_reason;
    if (totals.array_count > 1) {
        summary["array_index"] = totals.array_index;
        summary["array_count"] = totals.array_count;
        summary["element_output"] = fmt::format("{}.shards/a{}/", totals.output_path, totals.array_index);
        summary["merge_command"] = merge_command(totals.output_path);
    }
    return summary.dump();
}

}  // namespace shardrun::run
