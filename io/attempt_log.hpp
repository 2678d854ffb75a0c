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
    std::string host;     ///< where it ran (a requeued element may move nodes)
    /** Cut short by a drain, a stop or a time limit: not the task's failure; the task stays pending. */
    bool interrupted = false;
};

/**
 * @internal A task's attempts travel with its /tasks row as one string (a segment and a row
 * batch hold it like host or device), so that every path a row takes (segments, resume,
 * merge, the row-winner rule) carries them without a second bookkeeping. The master spreads
 * them into /attempts (io/task_rows/attempts_group.hpp). One line per attempt, tab-separated:
 * attempt, exit code, start, end, rank, host, interrupted (0/1), message. Lines of the six
 * fields before host and interrupted existed (attempt ... rank, message) still decode. The
 * task's failed rows follow as lines of their own (io/row_failures.hpp).
 */
std::string encode_attempts(const std::vector<AttemptRecord>& attempts);
/** The inverse of encode_attempts(); malformed lines are skipped. */
std::vector<AttemptRecord> decode_attempts(std::string_view text);

/** One attempt line of an encoded log as it lies there: its texts are views into the log. */
struct AttemptView {
    std::int32_t attempt = 1;
    std::int32_t exit_code = 0;
    double start = 0.0;
    double end = 0.0;
    std::int32_t rank = -1;
    std::string_view message;
    std::string_view host;
    bool interrupted = false;
};

/**
 * Reads the next attempt of `text` into `out` and advances `text` past its line; the failed
 * rows' lines and malformed lines are skipped. False when no attempt is left. The master's
 * /attempts columns are filled from this (attempts_group.cpp) with no string and no record
 * made per attempt: at a million tasks the per-attempt copies were a tenth of a merge's CPU.
 */
bool next_attempt(std::string_view& text, AttemptView& out);

/**
 * The attempts of both logs of one task (two runs of it, or the same rows read twice from a
 * master and a segment a kill left), each once (same start and rank), by start time. Attempt
 * numbers are kept when they rise with start time; otherwise (runs that each counted from 1)
 * they are renumbered 1, 2, ... The failed rows the logs carry (io/row_failures.hpp) are those
 * of the log whose last attempt began last: the task's latest run.
 */
std::string merge_attempt_logs(std::string_view a, std::string_view b);

/** How many attempts `text` (an encoded log) holds: its lines, less the failed rows'. */
std::int32_t attempt_count(std::string_view text) noexcept;

/** `text` as one line: control characters (newlines, tabs) become spaces. */
std::string one_line(std::string text);

}  // namespace shardrun::io
