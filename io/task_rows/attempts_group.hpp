#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5/handle.hpp"
#include "io/task_rows/row_failures_group.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io {

/**
 * @internal /attempts of a master: one row per attempt of every task, sorted by task then
 * attempt, in equal-length 1-D datasets task (uint64), attempt (int32, 1-based), exit_code,
 * start, end (float64, Unix seconds), rank (int32), message (variable-length UTF-8, empty
 * for a success), host (variable-length UTF-8) and interrupted (int8, 1 for an attempt a drain,
 * stop or time limit cut short), on the netCDF dimension `row` so that xarray opens the group as it is.
 * The rows come from the attempt_log of each /tasks row; this writer appends a block of
 * tasks at a time, so memory does not grow with the task count. The failed rows the logs
 * carry go to /attempts/row_failures (io/task_rows/row_failures_group.hpp).
 */
class AttemptsWriter {
public:
    explicit AttemptsWriter(hid_t file);
    /** Appends the attempts of `block`'s rows (in task id order). */
    void append(const TaskRows& block);
    /** Names the dimension of every dataset (once every block is in). */
    void finish();

private:
    hid_t file_;
    hdf5::Group group_;
    std::vector<hdf5::Dataset> columns_;  ///< in the order of attempts_column_names()
    std::uint64_t rows_ = 0;
    RowFailuresWriter row_failures_;
};

/**
 * The attempt_log of the tasks [first, first + count) of a file that has /attempts, with the
 * failed rows of its row_failures (io/row_failures.hpp) (empty
 * strings when it has none: a master written before it existed, or a single-layout file
 * before its first commit). `group` names another group of the same columns (a single
 * file's /attempts while its replacement is written).
 */
std::vector<std::string> read_attempt_logs(hid_t file, std::uint64_t first, std::size_t count,
                                           const std::string& group = "attempts");

}  // namespace shardrun::io
