#include "io/task_rows/task_rows.hpp"

#include <algorithm>
#include <numeric>

#include <string>

#include "io/attempt_log.hpp"
#include "io/checksum/checksum.hpp"
#include "io/errors.hpp"
#include "io/task_rows/gpu_columns.hpp"
#include "io/task_rows/usage_columns.hpp"

namespace shardrun::io {
namespace {

template <typename T>
std::uint32_t crc_of(std::uint32_t crc, const std::vector<T>& column)
{
    return crc32c(crc, column.data(), column.size() * sizeof(T));
}

}  // namespace

void TaskRows::clear()
{
    // Keeps the capacity: the next batch reuses the same (already faulted-in) memory.
    task_id.clear();
    status.clear();
    attempts.clear();
    rank.clear();
    host.clear();
    device.clear();
    start.clear();
    end.clear();
    exit_code.clear();
    message.clear();
    attempt_log.clear();
    gpu.clear();
    cpu_time.clear();
    mem_peak.clear();
    for (auto& field : fields) field.clear();
}

void TaskRows::append(const TaskRecord& record, const TaskValues& values, const std::vector<FieldSpec>& specs,
                      const std::vector<bool>* skip)
{
    task_id.push_back(record.task_id);
    status.push_back(static_cast<std::int8_t>(record.status));
    attempts.push_back(record.attempts);
    rank.push_back(record.rank);
    host.push_back(record.host);
    device.push_back(record.device);
    start.push_back(record.start);
    end.push_back(record.end);
    exit_code.push_back(record.exit_code);
    message.push_back(one_line(record.message));
    attempt_log.push_back(record.attempt_log);
    gpu.push_back(record.gpu);
    cpu_time.push_back(record.cpu_time);
    mem_peak.push_back(record.mem_peak);
    fields.resize(specs.size());
    for (std::size_t f = 0; f < specs.size(); ++f) {
        if (skip != nullptr && (*skip)[f]) continue;
        if (values.empty()) {
            append_fill(fields[f], specs[f], 1);
        } else {
            fields[f].insert(fields[f].end(), values[f].begin(), values[f].end());
        }
    }
}

TaskRecord TaskRows::record(std::size_t i) const
{
    return TaskRecord{task_id[i], static_cast<TaskStatus>(status[i]), attempts[i], rank[i], host[i], device[i],
                      start[i],   end[i],                             exit_code[i], message[i], attempt_log[i], gpu[i],
                      cpu_time[i], mem_peak[i]};
}

void TaskRows::assign_pending(std::uint64_t first, std::size_t n)
{
    task_id.resize(n);
    std::iota(task_id.begin(), task_id.end(), first);
    status.assign(n, static_cast<std::int8_t>(TaskStatus::pending));
    attempts.assign(n, 0);
    rank.assign(n, -1);
    host.assign(n, "");
    device.assign(n, "");
    start.assign(n, 0.0);
    end.assign(n, 0.0);
    exit_code.assign(n, 0);
    message.assign(n, "");
    attempt_log.assign(n, "");
    gpu.assign(n, TaskGpuUsage{});
    cpu_time.assign(n, TaskRecord{}.cpu_time);
    mem_peak.assign(n, TaskRecord{}.mem_peak);
}

bool TaskRows::take_if_better(std::size_t k, const TaskRows& from, std::size_t i)
{
    constexpr auto pending = static_cast<std::int8_t>(TaskStatus::pending);
    constexpr auto ok = static_cast<std::int8_t>(TaskStatus::ok);
    const auto candidate = from.status[i];
    // A task run again (a resume) keeps the attempts of every run, whichever row wins; a pending
    // row carries only the attempts a drain or stop interrupted (issue 35), and never wins.
    if (!from.attempt_log[i].empty()) {
        // The first run of a task a block sees (the common case): its log as it is, into the
        // string's kept capacity, where merge_attempt_logs() would allocate a copy.
        if (attempt_log[k].empty()) {
            attempt_log[k].assign(from.attempt_log[i]);
        } else {
            attempt_log[k] = merge_attempt_logs(attempt_log[k], from.attempt_log[i]);
        }
        attempts[k] = std::max(attempts[k], attempt_count(attempt_log[k]));
    }
    if (candidate == pending) return false;
    const auto current = status[k];
    const bool better = current == pending || (candidate == ok && current != ok) ||
                        (current != ok && candidate != ok && from.end[i] >= end[k]);
    if (!better) return false;
    status[k] = candidate;
    // The count is the attempts of every run: /tasks/attempts and /attempts agree.
    attempts[k] = std::max(from.attempts[i], attempt_count(attempt_log[k]));
    rank[k] = from.rank[i];
    host[k] = from.host[i];
    device[k] = from.device[i];
    start[k] = from.start[i];
    end[k] = from.end[i];
    exit_code[k] = from.exit_code[i];
    message[k] = from.message[i];
    gpu[k] = from.gpu[i];
    cpu_time[k] = from.cpu_time[i];
    mem_peak[k] = from.mem_peak[i];
    return true;
}

std::uint32_t TaskRows::columns_checksum() const
{
    std::uint32_t crc = 0;
    crc = crc_of(crc, task_id);
    crc = crc_of(crc, status);
    crc = crc_of(crc, attempts);
    crc = crc_of(crc, rank);
    crc = crc_of(crc, start);
    crc = crc_of(crc, end);
    crc = crc_of(crc, exit_code);
    for (const auto* column : {&host, &device}) {
        for (const auto& text : *column) crc = crc32c(crc, text.c_str(), text.size() + 1);
    }
    // Only the texts there are: a segment written before these columns existed checks as before.
    for (const auto* column : {&message, &attempt_log}) {
        for (const auto& text : *column) {
            if (!text.empty()) crc = crc32c(crc, text.c_str(), text.size() + 1);
        }
    }
    // Only where some row was measured: a segment without telemetry checks as before it existed.
    if (any_gpu_usage(gpu)) {
        for (const auto& row : gpu) {
            // Member by member: the struct's padding bytes are not the file's.
            crc = crc32c(crc, &row.mem_peak, sizeof row.mem_peak);
            for (const double value : {row.util_mean, row.util_peak, row.energy_j, row.temp_max}) {
                crc = crc32c(crc, &value, sizeof value);
            }
            crc = crc32c(crc, &row.xid_events, sizeof row.xid_events);
            crc = crc32c(crc, &row.mem_scope, sizeof row.mem_scope);
        }
        // GPM, energy and money: only where some row has them, so older segments check as before.
        bool extra = false;
        for (const auto& row : gpu) extra = extra || row.has_gpm() || row.has_energy_or_cost();
        for (const auto& row : extra ? gpu : std::vector<TaskGpuUsage>{}) {
            for (const double value : {row.sm_active, row.sm_occupancy, row.tensor_active, row.dram_bw, row.cpu_energy_j,
                                       row.total_energy_j, row.cost_usd}) {
                crc = crc32c(crc, &value, sizeof value);
            }
        }
    }
    // Likewise: a segment of tasks without accounting (built-in kinds, workers) checks as before it existed.
    if (any_usage(*this)) {
        crc = crc_of(crc, cpu_time);
        crc = crc_of(crc, mem_peak);
    }
    return crc;
}

std::uint32_t TaskRows::fields_checksum() const
{
    std::uint32_t crc = 0;
    for (const auto& field : fields) {
        const auto lanes = lane_checksum(field.data(), field.size());
        crc = crc32c(crc, &lanes, sizeof lanes);
    }
    return crc;
}

void check_values(const TaskRecord& record, const TaskValues& values, const std::vector<FieldSpec>& specs)
{
    if (values.empty() && record.status != TaskStatus::ok) return;
    const auto where = "task " + std::to_string(record.task_id) + ": ";
    if (values.size() != specs.size()) {
        SHARDRUN_THROW(ResultShapeError, where + "has " + std::to_string(values.size()) + " result fields, expected " +
                               std::to_string(specs.size()));
    }
    for (std::size_t f = 0; f < specs.size(); ++f) {
        if (values[f].size() == specs[f].bytes()) continue;
        SHARDRUN_THROW(ResultShapeError, where + "field '" + specs[f].name + "' has " + std::to_string(values[f].size()) +
                               " bytes, expected " + std::to_string(specs[f].bytes()) + " (" +
                               std::to_string(specs[f].elements()) + " x " + dtype_name(specs[f].dtype) + ")");
    }
}

}  // namespace shardrun::io
