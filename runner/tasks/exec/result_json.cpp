#include "runner/tasks/exec/result_json.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

namespace shardrun::tasks {
namespace {

// Flattens a nested JSON array of `shape` row-major into T values (int64 stays exact).
template <typename T>
void flatten(const nlohmann::json& value, const std::vector<std::size_t>& shape, size_t depth, std::vector<T>& out,
             const std::string& field)
{
    if (depth == shape.size()) {
        if (!value.is_number()) throw std::runtime_error(fmt::format("field '{}': {} is not a number", field, value.dump()));
        if constexpr (std::is_integral_v<T>) {
            if (!value.is_number_integer()) {
                throw std::runtime_error(fmt::format("field '{}': {} is not an integer", field, value.dump()));
            }
        }
        if constexpr (std::is_integral_v<T>) {
            const auto wide = value.get<std::int64_t>();
            if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max()) {
                throw std::runtime_error(fmt::format("field '{}': {} does not fit its integer type", field, wide));
            }
        }
        out.push_back(value.get<T>());
        return;
    }
    if (!value.is_array() || value.size() != shape[depth]) {
        throw std::runtime_error(fmt::format("field '{}': expected {} values at depth {}, got {}", field, shape[depth],
                                             depth, value.is_array() ? std::to_string(value.size()) : value.dump()));
    }
    for (const auto& item : value) flatten(item, shape, depth + 1, out, field);
}

template <typename T>
std::vector<std::byte> field_bytes(const nlohmann::json& value, const io::FieldSpec& field)
{
    std::vector<T> flat;
    flatten(value, field.shape, 0, flat, field.name);
    std::vector<std::byte> bytes(flat.size() * sizeof(T));
    std::memcpy(bytes.data(), flat.data(), bytes.size());
    return bytes;
}

std::vector<std::byte> to_bytes(const nlohmann::json& value, const io::FieldSpec& field)
{
    switch (field.dtype) {
    case io::DType::float32: return field_bytes<float>(value, field);
    case io::DType::float64: return field_bytes<double>(value, field);
    case io::DType::int32: return field_bytes<std::int32_t>(value, field);
    case io::DType::int64: return field_bytes<std::int64_t>(value, field);
    }
    return {};
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
            values.push_back(to_bytes(document[field.name], field));
        }
    } catch (const std::runtime_error& error) {
        return fmt::format("$SHARDRUN_RESULT {}", error.what());
    }
    return values;
}

}  // namespace shardrun::tasks
