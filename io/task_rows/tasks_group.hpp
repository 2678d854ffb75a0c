#pragma once

#include <hdf5.h>

#include <cstdint>

#include "io/task_rows/task_rows.hpp"

namespace shardrun::io {

/**
 * @internal The /tasks rows [first, first + count) of a single-layout file or a master,
 * where row i is task i: task ids set, no fields. Host and device may be codes with labels
 * (a master, label_columns.hpp), fixed- or
 * variable-length strings (a single file holds fixed ones until it is finished).
 */
TaskRows read_tasks_group(hid_t file, std::uint64_t first, std::size_t count);

/** The number of rows of the /tasks group of `file`. */
std::uint64_t tasks_group_rows(hid_t file);

}  // namespace shardrun::io
