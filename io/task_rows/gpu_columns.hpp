#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/gpu_usage.hpp"

namespace shardrun::io {

/** One /tasks/gpu_* column: its name, units attribute and the note for people. */
struct GpuColumn {
    const char* name;
    const char* units;
    const char* note;
};

/** gpu_mem_peak, gpu_util_mean, gpu_util_peak, gpu_energy_j, gpu_temp_max, gpu_xid_events, in that order. */
const std::vector<GpuColumn>& gpu_columns();

/** Whether any of `rows` was measured: the columns exist in a file only then. */
bool any_gpu_usage(const std::vector<TaskGpuUsage>& rows);

/** Bit (1 << scope) of every measured row's memory scope. */
unsigned gpu_scopes_of(const std::vector<TaskGpuUsage>& rows);

/**
 * Writes rows [first, first + rows.size()) of the /tasks/gpu_* columns of `tasks`, creating the
 * columns ([task_count], filled with -1 / NaN: "not measured") when absent. Adds `scopes`
 * (gpu_scopes_of) to gpu_mem_peak's `scope` attribute.
 */
void write_gpu_block(hid_t tasks, std::uint64_t task_count, std::uint64_t first, const std::vector<TaskGpuUsage>& rows,
                     unsigned scopes);

/** Rows [first, first + count) of the columns; every row unmeasured where `tasks` has none. */
std::vector<TaskGpuUsage> read_gpu_block(hid_t tasks, std::uint64_t first, std::size_t count);

/** One segment's rows as a compound dataset `name` of `file` (only call when any_gpu_usage). */
void write_gpu_compound(hid_t file, const char* name, const std::vector<TaskGpuUsage>& rows);
/** What write_gpu_compound() wrote; `count` unmeasured rows when there is no such dataset. */
std::vector<TaskGpuUsage> read_gpu_compound(hid_t file, const char* name, std::size_t count);

}  // namespace shardrun::io
