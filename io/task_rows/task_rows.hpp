#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::io {

/**
 * @internal A batch of task rows stored as columns, the way shard segments, the single
 * file and the master file hold them. fields[f] holds size() * fields_spec[f].bytes() bytes.
 */
struct TaskRows {
    std::vector<std::uint64_t> task_id;
    std::vector<std::int8_t> status;
    std::vector<std::int32_t> attempts;
    std::vector<std::int32_t> rank;
    std::vector<std::string> host;
    std::vector<std::string> device;
    std::vector<double> start;
    std::vector<double> end;
    std::vector<std::int32_t> exit_code;
    std::vector<std::string> message;      ///< /tasks/message
    std::vector<std::string> attempt_log;  ///< encoded attempts (io/attempt_log.hpp), spread into /attempts
    std::vector<TaskGpuUsage> gpu;         ///< /tasks/gpu_*, written only where some row was measured
    std::vector<double> cpu_time;          ///< /tasks/cpu_time (usage_columns.hpp), NaN: not measured
    std::vector<std::int64_t> mem_peak;    ///< /tasks/mem_peak, -1: not measured
    std::vector<std::vector<std::byte>> fields;

    std::size_t size() const noexcept { return task_id.size(); }
    void clear();
    /**
     * Appends one record; `values` are copied (fill values when the task failed), except the
     * fields flagged in `skip` (written elsewhere: a segment's large rows), whose columns stay empty.
     */
    void append(const TaskRecord& record, const TaskValues& values, const std::vector<FieldSpec>& specs,
                const std::vector<bool>* skip = nullptr);
    /** Makes this `n` pending rows with ids first, first + 1, ... (no row read yet); fields untouched. */
    void assign_pending(std::uint64_t first, std::size_t n);
    /**
     * The row-winner rule, the one place it is written: row `i` of `from` replaces row `k` of
     * this when k is pending, when i is ok and k is not (ok is final), or when neither is ok
     * and i ended no earlier (a resumed run re-ran a failed task). Returns whether it did;
     * the attempts of both rows are kept either way (each attempt once).
     * fields are the caller's (readers keep a pointer to the winning row's values instead).
     */
    bool take_if_better(std::size_t k, const TaskRows& from, std::size_t i);
    /** Row `i` as a TaskRecord (without values). */
    TaskRecord record(std::size_t i) const;
    /** CRC-32C over every /tasks column: detects a corrupt or torn segment. */
    std::uint32_t columns_checksum() const;
    /** CRC-32C over every field byte, kept apart so the columns can be verified without reading results. */
    std::uint32_t fields_checksum() const;
};

/**
 * Throws ResultShapeError unless `values` has one buffer per field, each FieldSpec::bytes()
 * long. Empty `values` are accepted for a task that did not succeed.
 */
void check_values(const TaskRecord& record, const TaskValues& values, const std::vector<FieldSpec>& specs);

}  // namespace shardrun::io
