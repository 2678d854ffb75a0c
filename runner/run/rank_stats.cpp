#include "runner/run/rank_stats.hpp"

#include <algorithm>

namespace shardrun::run {
namespace {

constexpr size_t slowest_kept = 5;
constexpr size_t failures_kept = 1000;

}  // namespace

void RankStats::add(std::uint64_t task_id, double seconds, bool success, int exit_code, const std::string& message)
{
    busy_seconds += seconds;
    if (success) {
        ++ok;
    } else {
        ++failed;
        if (failures.size() < failures_kept) failures.push_back({task_id, exit_code, message});
    }
    if (slowest.size() < slowest_kept || seconds > slowest.back().first) {
        slowest.emplace_back(seconds, task_id);
        std::sort(slowest.begin(), slowest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        if (slowest.size() > slowest_kept) slowest.pop_back();
    }
}

void RankStats::merge(const RankStats& later)
{
    ok += later.ok;
    failed += later.failed;
    interrupted += later.interrupted;
    busy_seconds += later.busy_seconds;
    startup_seconds += later.startup_seconds;
    drain_ran_out = drain_ran_out || later.drain_ran_out;
    for (const auto& f : later.failures) {
        if (failures.size() < failures_kept) failures.push_back(f);
    }
    for (const auto& s : later.slowest) slowest.push_back(s);
    std::sort(slowest.begin(), slowest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (slowest.size() > slowest_kept) slowest.resize(slowest_kept);
    given_back = later.given_back;
    if (!later.quarantine.empty()) quarantine = later.quarantine;
}

}  // namespace shardrun::run
