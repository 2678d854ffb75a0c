#include "runner/tasks/exec/result_json.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace shardrun::tasks {
namespace {

void flatten(const nlohmann::json& value, const std::vector<std::size_t>& shape, size_t depth,
             std::vector<double>& out, const std::string& field)
{
    if (depth == shape.size()) {
        if (!value.is_number()) throw std::runtime_error(fmt::format("field '{}': {} is not a number", field, value.dump()));
        out.push_back(value.get<double>());
        return;
    }
    if (!value.is_array() || value.size() != shape[depth]) {
        throw std::runtime_error(fmt::format("field '{}': expected {} values at depth {}, got {}", field, shape[depth],
                                             depth, value.is_array() ? std::to_string(value.size()) : value.dump()));
    }
    for (const auto& item : value) flatten(item, shape, depth + 1, out, field);
}

template <typename T>
void append_as(const std::vector<double>& values, std::vector<std::byte>& bytes)
{
    for (const double v : values) {
        const T converted = static_cast<T>(v);
        const auto* raw = reinterpret_cast<const std::byte*>(&converted);
        bytes.insert(bytes.end(), raw, raw + sizeof(T));
    }
}

std::vector<std::byte> to_bytes(const std::vector<double>& values, io::DType dtype)
{
    std::vector<std::byte> bytes;
    switch (dtype) {
    case io::DType::float32: append_as<float>(values, bytes); break;
    case io::DType::float64: append_as<double>(values, bytes); break;
    case io::DType::int32: append_as<std::int32_t>(values, bytes); break;
    case io::DType::int64: append_as<std::int64_t>(values, bytes); break;
    }
    return bytes;
}

}  // namespace

std::variant<io::TaskValues, std::string> read_result_json(const std::string& path,
                                                           const std::vector<io::FieldSpec>& fields)
{
    std::ifstream stream(path);
    if (!stream) return std::string("the task did not write its result file $SHARDRUN_RESULT");
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(stream);
    } catch (const nlohmann::json::parse_error& error) {
        return fmt::format("$SHARDRUN_RESULT is not JSON: {}", error.what());
    }
    if (!document.is_object()) return std::string("$SHARDRUN_RESULT must hold a JSON object");
    io::TaskValues values;
    try {
        for (const auto& field : fields) {
            if (!document.contains(field.name)) return fmt::format("$SHARDRUN_RESULT lacks the declared field '{}'", field.name);
            std::vector<double> flat;
            flatten(document[field.name], field.shape, 0, flat, field.name);
            values.push_back(to_bytes(flat, field.dtype));
        }
    } catch (const std::runtime_error& error) {
        return fmt::format("$SHARDRUN_RESULT {}", error.what());
    }
    return values;
}

}  // namespace shardrun::tasks
