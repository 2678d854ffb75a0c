#include "runner/exec/worker_protocol.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "runner/exec/results/result_json.hpp"
#include "runner/exec/worker_binary.hpp"

namespace shardrun::exec {
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

// Binary fields are decoded here; the others go through the $SHARDRUN_RESULT conversion.
std::variant<io::TaskValues, std::string> result_values(const nlohmann::json& results,
                                                        const std::vector<io::FieldSpec>& fields)
{
    io::TaskValues values(fields.size());
    std::vector<io::FieldSpec> listed;
    std::vector<std::size_t> listed_at;
    nlohmann::json listed_values = nlohmann::json::object();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const auto value = results.find(fields[i].name);
        if (value != results.end() && is_binary_result(*value)) {
            auto bytes = decode_binary_result(*value, fields[i]);
            if (auto* reason = std::get_if<std::string>(&bytes)) return *reason;
            values[i] = std::move(std::get<std::vector<std::byte>>(bytes));
            continue;
        }
        if (value != results.end()) listed_values[fields[i].name] = *value;
        listed.push_back(fields[i]);
        listed_at.push_back(i);
    }
    if (listed.empty()) return values;
    auto converted = parse_result_json(listed_values.dump(), listed);
    if (auto* reason = std::get_if<std::string>(&converted)) return answer_wording(*reason);
    auto& listed_bytes = std::get<io::TaskValues>(converted);
    for (std::size_t k = 0; k < listed.size(); ++k) values[listed_at[k]] = std::move(listed_bytes[k]);
    return values;
}

}  // namespace

std::string worker_request_line(const TaskContext& context)
{
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [name, value] : context.params->entries()) params[name] = param_json(value);
    nlohmann::json line{{"task_id", context.task_id},   {"task_count", context.task_count},
                        {"params", std::move(params)},  {"attempt", context.attempt},
                        {"task_dir", context.task_dir}, {"range", nullptr}};
    if (context.range) line["range"] = {context.range->start, context.range->end};
    if (!context.input.empty()) line["input"] = context.input;
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::size_t max_answer_bytes(const std::vector<io::FieldSpec>& fields)
{
    std::size_t elements = 0;
    for (const auto& field : fields) elements += field.elements();
    return (std::size_t{1} << 20) + 32 * elements;
}

WorkerAnswer parse_worker_answer(std::string_view line, const std::vector<io::FieldSpec>& fields,
                                 const AnswerShapes& shapes_of)
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
    if (results == document.end()) return malformed("status ok without 'results'", task_id);
    if (!results->is_object()) return malformed("'results' must be an object of the declared fields", task_id);
    auto values = shapes_of ? result_values(*results, shapes_of(task_id)) : result_values(*results, fields);
    if (auto* reason = std::get_if<std::string>(&values)) return malformed(*reason, task_id);
    answer.values = std::move(std::get<io::TaskValues>(values));
    return answer;
}

}  // namespace shardrun::exec
