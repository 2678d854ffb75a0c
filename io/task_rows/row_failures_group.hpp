#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/hdf5/handle.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io {

/**
 * @internal /attempts/row_failures: one row per input row that failed on its own (a failing
 * chunk split until its failing rows were found, io/row_failures.hpp), sorted by task then
 * item, in equal-length 1-D datasets item (uint64, the row's index in the data range), task
 * (uint64), exit_code (int32) and reason (variable-length UTF-8), on the netCDF dimension
 * `failure`. Inside /attempts, so that a single file's rewrite of /attempts (moved aside,
 * rewritten, the old one deleted) carries it with the attempts it belongs to. Made only when
 * some row failed.
 */
class RowFailuresWriter {
public:
    /** @param attempts  the /attempts group being written */
    RowFailuresWriter(hid_t file, hid_t attempts) : file_(file), attempts_(attempts) {}
    /** Appends the failed rows of `block`'s tasks (in task id order). */
    void append(const TaskRows& block);
    /** Names the dimension of every dataset (once every block is in). */
    void finish();

private:
    hid_t file_;
    hid_t attempts_;
    std::optional<hdf5::Group> group_;
    std::vector<hdf5::Dataset> columns_;  ///< item, task, exit_code, reason
    std::uint64_t rows_ = 0;
};

/**
 * The failed rows of the tasks [first, first + count), encoded as attempt-log lines
 * (encode_row_failures), from `attempts_group`/row_failures; empty strings where there is none.
 */
std::vector<std::string> read_row_failure_lines(hid_t file, const std::string& attempts_group, std::uint64_t first,
                                                std::size_t count);

}  // namespace shardrun::io
