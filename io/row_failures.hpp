#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::io {

/**
 * One input row of a data chunk that failed on its own: a chunk that failed was split until
 * its failing rows were found (exec.mode worker with a `rows` field). One row of
 * /attempts/row_failures.
 */
struct RowFailure {
    std::uint64_t item = 0;    ///< the row's index in the data, within its task's range [start, end)
    std::int32_t exit_code = 0;
    std::string reason;        ///< one line
};

/**
 * @internal A task's failed rows travel in its attempt log (io/attempt_log.hpp, which encodes them), as lines
 * "row\t<item>\t<exit code>\t<reason>" after the attempts, so that every path a /tasks row
 * takes (segments, resume, merge, the single file's rewrite) carries them; decode_attempts()
 * skips these lines.
 */
std::string encode_row_failures(const std::vector<RowFailure>& rows);
/** True when the attempt log holds a failed row: its task failed, but its other rows have results. */
bool has_row_failures(std::string_view log);
/** The row lines of an attempt log; other lines are skipped. */
std::vector<RowFailure> decode_row_failures(std::string_view log);

}  // namespace shardrun::io
