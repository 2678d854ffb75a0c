#pragma once

#include <hdf5.h>

#include <cstdint>

#include "io/task_rows/task_rows.hpp"

/**
 * @file
 * The /tasks/cpu_time and /tasks/mem_peak columns: what the kernel accounted to a task's
 * process tree (exec tasks in task mode). Masters and single files always hold them
 * (NaN and -1 where a task was not measured); a segment holds them only where some row was.
 */
namespace shardrun::io {

inline constexpr const char* cpu_time_column = "cpu_time";
inline constexpr const char* mem_peak_column = "mem_peak";

/** Whether any row of `rows` was measured. */
bool any_usage(const TaskRows& rows);

/** Writes the units and note attributes of both columns of the /tasks group `tasks`. */
void describe_usage_columns(hid_t tasks);

/** Rows [first, first + count) of both columns into rows.cpu_time and rows.mem_peak; unmeasured where `tasks` lacks them. */
void read_usage_block(hid_t tasks, std::uint64_t first, std::size_t count, TaskRows& rows);

/** A segment's "usage" compound (cpu_time, mem_peak), written only when any row was measured. */
void write_usage_compound(hid_t file, const TaskRows& rows);
/** Reads it back into rows (sized rows.size()); unmeasured rows where the segment has none. */
void read_usage_compound(hid_t file, TaskRows& rows);

}  // namespace shardrun::io
