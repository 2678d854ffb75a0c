#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/result_types.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::exec {

// What a worker gives back is a task kind's outcome (runner/tasks/task_kind.hpp).
using tasks::TaskContext;
using tasks::TaskOutcome;

/**
 * The line shardrun writes to a worker's stdin for one task (with its '\n'):
 * {"task_id", "task_count", "params", "range": [start, end) or null, "attempt", "task_dir"},
 * and "input" (data.input, "file.h5:/dataset") when the job reads one.
 */
std::string worker_request_line(const TaskContext& context);

/** One line a worker wrote on SHARDRUN_ANSWER_FD, decoded. */
struct WorkerAnswer {
    enum class Kind { ready, task, malformed };
    Kind kind = Kind::malformed;
    std::optional<std::uint64_t> task_id;  ///< also set for a malformed answer that names its task
    bool ok = false;                       ///< "status": "ok"
    std::string message;                   ///< the worker's failure message, or why the line is malformed
    io::TaskValues values;                 ///< the declared fields, when ok
};

/** The shapes the results of task `task_id` must have (parameter dimensions at its own values). */
using AnswerShapes = std::function<std::vector<io::FieldSpec>(std::uint64_t task_id)>;

/**
 * Decodes an answer line: {"ready": true}, or {"task_id", "status": "ok"|"failed",
 * "message", "results": {declared fields}}. Results are converted as $SHARDRUN_RESULT files are.
 * @param shapes_of  when given, the shapes the named task's results must have instead of `fields`'
 */
WorkerAnswer parse_worker_answer(std::string_view line, const std::vector<io::FieldSpec>& fields,
                                 const AnswerShapes& shapes_of = {});

/** The longest answer line the declared fields can need (longer lines are a protocol error). */
std::size_t max_answer_bytes(const std::vector<io::FieldSpec>& fields);

}  // namespace shardrun::exec
