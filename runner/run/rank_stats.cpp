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

}  // namespace shardrun::run
