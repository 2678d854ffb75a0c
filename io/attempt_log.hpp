#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::io {

/** One attempt of a task: one row of /attempts. Times are seconds since the Unix epoch (UTC). */
struct AttemptRecord {
    std::int32_t attempt = 1;  ///< 1-based, counted over every run of the output (a resume goes on counting)
    std::int32_t exit_code = 0;
    double start = 0.0;
    double end = 0.0;
    std::int32_t rank = -1;
    std::string message;  ///< one line; empty for a success
};

/**
 * @internal A task's attempts travel with its /tasks row as one string (a segment and a row
 * batch hold it like host or device), so that every path a row takes (segments, resume,
 * merge, the row-winner rule) carries them without a second bookkeeping. The master spreads
 * them into /attempts (io/task_rows/attempts_group.hpp). One line per attempt, tab-separated;
 * the task's failed rows follow as lines of their own (io/row_failures.hpp).
 */
std::string encode_attempts(const std::vector<AttemptRecord>& attempts);
/** The inverse of encode_attempts(); malformed lines are skipped. */
std::vector<AttemptRecord> decode_attempts(std::string_view text);

/**
 * The attempts of both logs of one task (two runs of it, or the same rows read twice from a
 * master and a segment a kill left), each once (same start and rank), by start time. Attempt
 * numbers are kept when they rise with start time; otherwise (runs that each counted from 1)
 * they are renumbered 1, 2, ... The failed rows the logs carry (io/row_failures.hpp) are those
 * of the log whose last attempt began last: the task's latest run.
 */
std::string merge_attempt_logs(std::string_view a, std::string_view b);

/** `text` as one line: control characters (newlines, tabs) become spaces. */
std::string one_line(std::string text);

}  // namespace shardrun::io
