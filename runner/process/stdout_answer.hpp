#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace shardrun::process {

/** An answer a worker printed on stdout (its log) instead of $SHARDRUN_ANSWER_FD. */
struct StdoutAnswer {
    bool ready = false;                    ///< {"ready": ...}: its ready line
    std::optional<std::uint64_t> task_id;  ///< the task it meant to answer, when it named one
    std::string hint;                      ///< one line naming $SHARDRUN_ANSWER_FD, for the task or the rank
};

/**
 * Reads what a worker appends to the rank's worker log (its stdout and stderr) and spots a
 * line that is an answer: a JSON object with "ready", or with "task_id" and "status". Such a
 * worker would otherwise wait out exec.worker_start_timeout or the task's timeout, since
 * shardrun reads answers only on $SHARDRUN_ANSWER_FD.
 */
class StdoutAnswerWatch {
public:
    /** Watches `log_path` from byte `offset` on (the log's size when the worker was spawned). */
    StdoutAnswerWatch(std::string log_path, off_t offset) : path_(std::move(log_path)), offset_(offset) {}

    /** The first answer-like line among the complete lines written since the last call. */
    std::optional<StdoutAnswer> next();

private:
    std::string path_;
    off_t offset_;
    std::string partial_;  ///< the start of a line not yet ended
};

/** The answer a line on stdout looks like, if it looks like one. */
std::optional<StdoutAnswer> stdout_answer(std::string_view line);

/** The log's size now (0 when it does not exist yet). */
off_t log_size(const std::string& log_path);

}  // namespace shardrun::process
