#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardrun::io {

/** One axis of a cartesian sweep: its parameter and its number of values. */
struct GridAxis {
    std::string name;
    std::uint64_t size = 0;
};

/** The job as the master stored it: the resolved JSON (task, params, sweep, data, exec). */
std::string stored_job_json(const std::string& master_path);

/**
 * Writes `target`, a netCDF-4 file (HDF5 with dimension scales) that one
 * `xr.open_dataset(target)` reads: each axis a coordinate variable with its values taken
 * from /params (task id = row-major index over `axes`, the last axis fastest, as the task
 * space numbers points); each result field of the master a variable
 * [axes..., <field>_dim0, ...] with its `units` and `_FillValue` (tasks without a result
 * keep the master's fill value: NaN, or the minimum integer); `status` [axes...] int8 with
 * CF flag_values / flag_meanings. Written to a temp name and renamed, so a failed export
 * leaves nothing behind; an existing `target` is replaced.
 *
 * @param axes  the sweep axes in job order; their sizes must multiply to the task count
 * @throws OutputError  the master is missing or unreadable, or the axes do not fit it
 */
void export_grid(const std::string& master_path, const std::vector<GridAxis>& axes, const std::string& target);

}  // namespace shardrun::io
