#pragma once

#include <functional>
#include <vector>

#include "io/result_types.hpp"
#include "runner/core/task_kind.hpp"

namespace shardrun::tasks {

/** Runs the task `context` points at over context.range only (a part of its chunk). */
using RangeRun = std::function<TaskOutcome(const TaskContext& context)>;

/**
 * True when `failed` may be the doing of some of the chunk's rows, so splitting the chunk can
 * find them: a task alone (no group) with more than one row and a `rows` field, whose worker
 * died on it or answered failed. Not a timeout (halves of a hang would each wait it out), a
 * malformed answer (every part would be malformed alike), or a stop.
 */
bool may_split(const TaskOutcome& failed, const TaskContext& context, const std::vector<io::FieldSpec>& fields);

/**
 * The outcome of a chunk whose run failed (may_split): its range is split in halves, each
 * half run again, and a half that fails split again, down to single rows. A failing row goes
 * to `row_failures` with its own reason; a half that succeeds gives its rows of the `rows`
 * fields. Rows found: the task fails, with the other rows' results in its values (the fill
 * value in its per-task fields, which no single answer covered) and a message counting them.
 * No row found (the failure did not come back): the task succeeds with the halves' rows.
 * A part failing otherwise (timeout, malformed answer, stop), or more than
 * `max_failing_rows_per_chunk` rows failing, ends the splitting: the chunk fails whole, with
 * that reason. Each failing row costs at most 2 * ceil(log2(rows)) extra runs.
 */
TaskOutcome split_failed_chunk(const TaskContext& context, const std::vector<io::FieldSpec>& fields,
                               const TaskOutcome& failed, const RangeRun& run_range);

/** More failing rows than this in one chunk: the program fails on most input, not on a few rows. */
inline constexpr int max_failing_rows_per_chunk = 4;

}  // namespace shardrun::tasks
