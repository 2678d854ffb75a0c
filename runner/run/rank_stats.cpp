#include "runner/run/rank_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace shardrun::run {
namespace {

constexpr size_t slowest_kept = 5;
constexpr size_t failures_kept = 1000;
constexpr size_t cut_short_kept = 3;

using Timed = std::vector<std::pair<double, std::uint64_t>>;

/** Adds `more` to `list` and keeps its `kept` longest, longest first. */
void keep_longest(Timed& list, const Timed& more, size_t kept)
{
    list.insert(list.end(), more.begin(), more.end());
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (list.size() > kept) list.resize(kept);
}

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
    // The slowest tasks that did their work: a failure (a program not found, 0.000 s) is listed as failed, not as slow.
    if (success && (slowest.size() < slowest_kept || seconds > slowest.back().first)) {
        keep_longest(slowest, {{seconds, task_id}}, slowest_kept);
    }
}

void RankStats::add_interrupted(std::uint64_t task_id, double seconds)
{
    ++interrupted;
    busy_seconds += seconds;  // the rank was busy with it until the stop, though the task runs again
    keep_longest(cut_short, {{seconds, task_id}}, cut_short_kept);
}

void RankStats::add_usage(double cpu_time, std::int64_t peak)
{
    if (!std::isnan(cpu_time)) {
        cpu_seconds += cpu_time;
        ++measured_tasks;
    }
    mem_peak = std::max(mem_peak, peak);
}

void RankStats::add_nans(const io::TaskValues& values, const std::vector<io::FieldSpec>& fields)
{
    // Scalars only: an array's padding (rows, {param} lengths) is NaN by design.
    for (std::size_t f = 0; f < fields.size() && f < values.size(); ++f) {
        const auto& field = fields[f];
        if (!field.shape.empty() || values[f].size() != field.bytes()) continue;
        bool nan = false;
        if (field.dtype == io::DType::float64) {
            double value;
            std::memcpy(&value, values[f].data(), sizeof value);
            nan = std::isnan(value);
        } else if (field.dtype == io::DType::float32) {
            float value;
            std::memcpy(&value, values[f].data(), sizeof value);
            nan = std::isnan(value);
        }
        if (nan) ++nan_results[field.name];
    }
}

void RankStats::merge(const RankStats& later)
{
    for (const auto& [name, count] : later.nan_results) nan_results[name] += count;
    cpu_seconds += later.cpu_seconds;
    measured_tasks += later.measured_tasks;
    mem_peak = std::max(mem_peak, later.mem_peak);
    ok += later.ok;
    failed += later.failed;
    interrupted += later.interrupted;
    busy_seconds += later.busy_seconds;
    if (later.last_task_end > last_task_end) final_commit_seconds = later.final_commit_seconds;  // the later loop's is last
    last_task_end = std::max(last_task_end, later.last_task_end);
    startup_seconds += later.startup_seconds;
    drain_ran_out = drain_ran_out || later.drain_ran_out;
    for (const auto& f : later.failures) {
        if (failures.size() < failures_kept) failures.push_back(f);
    }
    keep_longest(slowest, later.slowest, slowest_kept);
    keep_longest(cut_short, later.cut_short, cut_short_kept);
    given_back = later.given_back;
    if (!later.quarantine.empty()) quarantine = later.quarantine;
}

}  // namespace shardrun::run
