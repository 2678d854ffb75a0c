#include "runner/tasks/exec/result_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

namespace shardrun::tasks {
namespace {

// A value named in a message: scalars shown (cut to 60 characters), containers by kind only,
// so a huge or deeply nested value never makes a huge message or a deep recursion.
std::string describe(const nlohmann::json& value)
{
    if (value.is_array()) return fmt::format("an array of {}", value.size());
    if (value.is_object()) return "an object";
    auto text = value.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return text;
}

struct TooDeep {};

// Flattens a nested JSON array of `shape` row-major into T values (int64 stays exact).
template <typename T>
void flatten(const nlohmann::json& value, const std::vector<std::size_t>& shape, size_t depth, std::vector<T>& out,
             const std::string& field)
{
    if (depth == shape.size()) {
        if (!value.is_number()) throw std::runtime_error(fmt::format("field '{}': {} is not a number", field, describe(value)));
        if constexpr (std::is_integral_v<T>) {
            if (!value.is_number_integer()) {
                throw std::runtime_error(fmt::format("field '{}': {} is not an integer", field, describe(value)));
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
                                             depth, value.is_array() ? std::to_string(value.size()) : describe(value)));
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
    // Bounds before parsing: the declared fields need about 32 characters a number; the nesting
    // needs one level for the object and one per dimension.
    std::size_t elements = 0, depth = 1;
    for (const auto& field : fields) {
        elements += field.elements();
        depth = std::max(depth, field.shape.size() + 1);
    }
    const std::uintmax_t max_bytes = (1u << 20) + 32 * static_cast<std::uintmax_t>(elements);
    std::error_code size_error;
    const auto bytes = std::filesystem::file_size(path, size_error);
    if (!size_error && bytes > max_bytes) {
        return fmt::format("$SHARDRUN_RESULT is {} bytes; the declared fields allow at most {}", bytes, max_bytes);
    }
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(stream, [depth](int level, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (static_cast<std::size_t>(level) > depth) throw TooDeep{};
            return true;
        });
    } catch (const nlohmann::json::parse_error& error) {
        return fmt::format("$SHARDRUN_RESULT is not JSON: {}", error.what());
    } catch (const TooDeep&) {
        return fmt::format("$SHARDRUN_RESULT nests deeper than its declared fields allow (at most {} level{})", depth,
                           depth == 1 ? "" : "s");
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
