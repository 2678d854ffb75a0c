#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/result_types.hpp"
#include "runner/core/task_kind.hpp"

namespace shardrun::process {

// What a worker gives back is a task kind's outcome (runner/core/task_kind.hpp).
using tasks::TaskContext;
using tasks::TaskOutcome;

/** What one task's answer is checked against beyond the declared fields. */
struct AnswerPlace {
    /** Rows of the task's data range (end - start): a field with item_rows answers this many. */
    std::optional<std::size_t> rows;
    /** The folder where the worker may leave <field>.npy for this task (empty: none). */
    std::string result_dir;
    /** The task's parameters: a parameter-sized field answers its own value's length (job/param_shapes.hpp). */
    const job::ParamMap* params = nullptr;
};

/** The AnswerPlace of `context`'s task, with `result_dir` (empty when no results are declared). */
AnswerPlace answer_place(const TaskContext& context, std::string result_dir);

/**
 * The line shardrun writes to a worker's stdin for one task (with its '\n'):
 * {"task_id", "task_count", "params", "range": [start, end) or null, "attempt", "task_dir", "checkpoint_dir"},
 * "input" (data.input, "file.h5:/dataset") when the job reads one, and "result_dir" (where
 * the answer may leave <field>.npy files) when `result_dir` is not empty.
 */
std::string worker_request_line(const TaskContext& context, const std::string& result_dir = {});

/** One line a worker wrote on SHARDRUN_ANSWER_FD, decoded. */
struct WorkerAnswer {
    enum class Kind { ready, task, malformed };
    Kind kind = Kind::malformed;
    std::optional<std::uint64_t> task_id;  ///< also set for a malformed answer that names its task
    bool ok = false;                       ///< "status": "ok"
    std::string message;                   ///< the worker's failure message, or why the line is malformed
    io::TaskValues values;                 ///< the declared fields, when ok and converted
    /** An ok answer's "results" object as sent, until convert_worker_results() turns it into values. */
    nlohmann::json results;
};

/**
 * Decodes an answer line: {"ready": true}, or {"task_id", "status": "ok"|"failed", "message",
 * "results": {declared fields}}. The results stay as sent (answer.results): converting them
 * needs the task's rows and result folder, which the answer's task_id leads to.
 */
WorkerAnswer read_worker_answer(std::string_view line, const std::vector<io::FieldSpec>& fields);

/**
 * Converts an ok answer's results into values, as $SHARDRUN_RESULT files are: each declared
 * field from "results" (numbers, nested lists, or {"dtype", "shape", "base64"}), or from
 * place.result_dir/<field>.npy when "results" leaves it out. A field with item_rows must have
 * place.rows rows and is padded to its declared rows. A field given in both places or in
 * neither, or of another dtype or shape, makes the answer malformed (its message says why).
 */
void convert_worker_results(WorkerAnswer& answer, const std::vector<io::FieldSpec>& fields, const AnswerPlace& place);

/** read_worker_answer, then convert_worker_results for an ok answer. */
WorkerAnswer parse_worker_answer(std::string_view line, const std::vector<io::FieldSpec>& fields,
                                 const AnswerPlace& place = {});

/** The longest answer line the declared fields can need (longer lines are a protocol error). */
std::size_t max_answer_bytes(const std::vector<io::FieldSpec>& fields);

}  // namespace shardrun::process
