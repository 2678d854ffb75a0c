#include "runner/process/worker_protocol.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "runner/process/results/result_files.hpp"
#include "runner/process/results/result_json.hpp"
#include "runner/process/results/result_npy.hpp"
#include "runner/process/results/task_shapes.hpp"
#include "runner/process/worker_binary.hpp"

namespace shardrun::process {
namespace {

struct TooDeep {};

nlohmann::json param_json(const job::ParamValue& value)
{
    return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

WorkerAnswer malformed(std::string why, std::optional<std::uint64_t> task_id = std::nullopt)
{
    WorkerAnswer answer;
    answer.kind = WorkerAnswer::Kind::malformed;
    answer.task_id = task_id;
    answer.message = "malformed answer: " + std::move(why);
    return answer;
}

// result_json words its reasons for the $SHARDRUN_RESULT file; here they are about the answer.
std::string answer_wording(std::string reason)
{
    const std::string file = "$SHARDRUN_RESULT";
    if (reason.rfind(file, 0) == 0) reason = "results" + reason.substr(file.size());
    return reason;
}

bool file_exists(const std::string& path)
{
    std::error_code ignored;
    return std::filesystem::exists(std::filesystem::symlink_status(path, ignored));
}

std::string shape_text(const std::vector<std::size_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// A rows field sent as a list: its length is checked here, so the reason names both shapes.
std::optional<std::string> wrong_row_count(const nlohmann::json& value, const io::FieldSpec& field)
{
    if (!field.item_rows || !value.is_array() || value.size() == field.shape.front()) return std::nullopt;
    auto given = field.shape;
    given.front() = value.size();
    return fmt::format("results field '{}': {} rows (shape {}) is not this task's {} (a rows field answers end - "
                       "start = {} rows of its range)", field.name, value.size(), shape_text(given),
                       shape_text(field.shape), field.shape.front());
}

// Each field from one place: the answer's "results" (binary decoded here, lists and numbers through
// the $SHARDRUN_RESULT conversion) or <result_dir>/<field>.npy, in the shape this task delivers.
std::variant<io::TaskValues, std::string> result_values(const nlohmann::json& results,
                                                        const std::vector<io::FieldSpec>& fields,
                                                        const AnswerPlace& place)
{
    const auto shapes = task_shapes(fields, place.rows, place.params);
    io::TaskValues values(fields.size());
    std::vector<bool> decoded(fields.size(), false);
    nlohmann::json listed = nlohmann::json::object();
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const auto& field = shapes[i];
        const auto value = results.find(field.name);
        const auto npy = place.result_dir.empty() ? std::string() : place.result_dir + "/" + field.name + ".npy";
        const bool as_file = !npy.empty() && file_exists(npy);
        if (value != results.end() && as_file) {
            return fmt::format("results field '{}' is given twice: in the answer and as {}", field.name, npy);
        }
        if (value == results.end() && !as_file) {
            return fmt::format("results lacks the declared field '{}'{}", field.name,
                               npy.empty() ? "" : fmt::format(" (and there is no {})", npy));
        }
        std::variant<std::vector<std::byte>, std::string> bytes;
        if (as_file) {
            bytes = read_npy_field(npy, field, field.shape);
        } else if (is_binary_result(*value)) {
            bytes = decode_binary_result(*value, field);
        } else if (auto reason = wrong_row_count(*value, field)) {
            return *reason;
        } else {
            listed[field.name] = *value;
            continue;
        }
        if (auto* reason = std::get_if<std::string>(&bytes)) return *reason;
        values[i] = std::move(std::get<std::vector<std::byte>>(bytes));
        decoded[i] = true;
    }
    if (!listed.empty()) {
        auto converted = parse_result_json(listed.dump(), shapes, &decoded);
        if (auto* reason = std::get_if<std::string>(&converted)) return answer_wording(*reason);
        auto& listed_values = std::get<io::TaskValues>(converted);
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (!decoded[i]) values[i] = std::move(listed_values[i]);
        }
    }
    pad_to_declared(values, shapes, fields);
    return values;
}

}  // namespace

AnswerPlace answer_place(const TaskContext& context, std::string result_dir)
{
    AnswerPlace place;
    if (context.range) place.rows = static_cast<std::size_t>(context.range->end - context.range->start);
    place.params = context.params;
    place.result_dir = std::move(result_dir);
    return place;
}

std::string worker_request_line(const TaskContext& context, const std::string& result_dir)
{
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [name, value] : context.params->entries()) params[name] = param_json(value);
    nlohmann::json line{{"task_id", context.task_id},   {"task_count", context.task_count},
                        {"params", std::move(params)},  {"attempt", context.attempt_number()},
                        {"task_dir", context.task_dir}, {"range", nullptr}};
    if (context.range) line["range"] = {context.range->start, context.range->end};
    if (!context.checkpoint_dir.empty()) line["checkpoint_dir"] = context.checkpoint_dir;
    if (!context.input.empty()) {
        // A line or Parquet input (no ":/dataset") as an absolute path: shardrun.records() opens it from any cwd.
        const bool whole_file = context.input.find(":/") == std::string::npos;
        line["input"] = whole_file ? std::filesystem::absolute(context.input).string() : context.input;
    }
    if (!result_dir.empty()) line["result_dir"] = result_dir;
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::size_t max_answer_bytes(const std::vector<io::FieldSpec>& fields)
{
    std::size_t elements = 0;
    for (const auto& field : fields) elements += field.elements();
    return (std::size_t{1} << 20) + 32 * elements;
}

WorkerAnswer read_worker_answer(std::string_view line, const std::vector<io::FieldSpec>& fields)
{
    std::size_t depth = 4;  // answer, results, a binary field's object and its shape list
    for (const auto& field : fields) depth = std::max(depth, field.shape.size() + 2);
    nlohmann::json document;
    // NaN and ±inf as Python's json writes them are values here too, as in $SHARDRUN_RESULT.
    const auto quoted = quote_non_finite(line);
    if (quoted) line = *quoted;
    try {
        document = nlohmann::json::parse(line, [depth](int level, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (static_cast<std::size_t>(level) > depth) throw TooDeep{};
            return true;
        });
    } catch (const nlohmann::json::parse_error&) {
        return malformed("not a JSON object");
    } catch (const TooDeep&) {
        return malformed(fmt::format("nests deeper than the declared fields allow ({} levels)", depth));
    }
    if (!document.is_object()) return malformed("not a JSON object");
    if (document.contains("ready")) {
        if (document["ready"] != true) return malformed("'ready' must be true");
        WorkerAnswer answer;
        answer.kind = WorkerAnswer::Kind::ready;
        return answer;
    }
    const auto id = document.find("task_id");
    if (id == document.end() || !id->is_number_unsigned()) return malformed("no task_id (a non-negative integer)");
    const auto task_id = id->get<std::uint64_t>();
    const auto status = document.find("status");
    if (status == document.end() || (*status != "ok" && *status != "failed")) {
        return malformed("'status' must be \"ok\" or \"failed\"", task_id);
    }
    WorkerAnswer answer;
    answer.kind = WorkerAnswer::Kind::task;
    answer.task_id = task_id;
    if (const auto message = document.find("message"); message != document.end() && message->is_string()) {
        answer.message = message->get<std::string>();
    }
    if (*status == "failed") return answer;
    answer.ok = true;
    if (fields.empty()) return answer;
    const auto results = document.find("results");
    // Without "results" every field must be a file in the task's result folder (convert_worker_results).
    if (results == document.end()) return answer;
    if (!results->is_object()) return malformed("'results' must be an object of the declared fields", task_id);
    answer.results = std::move(*results);
    return answer;
}

void convert_worker_results(WorkerAnswer& answer, const std::vector<io::FieldSpec>& fields, const AnswerPlace& place)
{
    if (answer.kind != WorkerAnswer::Kind::task || !answer.ok || fields.empty()) return;
    if (answer.results.is_null() && place.result_dir.empty()) {
        answer = malformed("status ok without 'results'", answer.task_id);
        return;
    }
    if (answer.results.is_null()) answer.results = nlohmann::json::object();
    auto values = result_values(answer.results, fields, place);
    answer.results = nlohmann::json();
    if (auto* reason = std::get_if<std::string>(&values)) {
        answer = malformed(*reason, answer.task_id);
        return;
    }
    answer.values = std::move(std::get<io::TaskValues>(values));
}

WorkerAnswer parse_worker_answer(std::string_view line, const std::vector<io::FieldSpec>& fields,
                                 const AnswerPlace& place)
{
    auto answer = read_worker_answer(line, fields);
    convert_worker_results(answer, fields, place);
    return answer;
}

}  // namespace shardrun::process
