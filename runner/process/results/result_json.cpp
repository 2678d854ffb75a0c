#include "runner/process/results/result_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "base/error.hpp"

namespace shardrun::process {
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

// One element of a bool field: a byte (std::vector<bool> has no bytes to copy), 0 or 1.
struct Flag {
    std::uint8_t value;
};
static_assert(sizeof(Flag) == 1);

// A bool field takes JSON true/false only: 0/1 or null would be a guess (a bool has no missing value).
[[noreturn]] void not_a_bool(const nlohmann::json& value, const std::string& field)
{
    SHARDRUN_THROW(Error, fmt::format("field '{}': {} is not true or false (a bool field)", field, describe(value)));
}

// NaN, Infinity and null are values (a diverged run), not failures: floats store NaN or
// +-inf; integers store their fill value, the minimum of the type, which is also the
// _FillValue of /results (io/README.md), so xarray shows NaN there too.
template <typename T>
T missing_value()
{
    if constexpr (std::is_floating_point_v<T>) {
        return std::numeric_limits<T>::quiet_NaN();
    } else {
        return std::numeric_limits<T>::min();
    }
}

// "NaN", "Infinity", "-Infinity" (as Python's json writes them, quoted or not: see
// quote_non_finite) and the spellings float() accepts (nan, inf, +inf, infinity), any case.
std::optional<double> non_finite(const std::string& text)
{
    std::string word;
    for (const char c : text) word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool negative = !word.empty() && word[0] == '-';
    if (!word.empty() && (word[0] == '-' || word[0] == '+')) word.erase(0, 1);
    if (word == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (word == "inf" || word == "infinity") {
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    return std::nullopt;
}

template <typename T>
T number_value(const nlohmann::json& value, const std::string& field);

template <typename T>
T leaf_value(const nlohmann::json& value, const std::string& field)
{
    if constexpr (std::is_same_v<T, Flag>) {
        if (!value.is_boolean()) not_a_bool(value, field);
        return Flag{static_cast<std::uint8_t>(value.get<bool>() ? 1 : 0)};
    } else {
        return number_value<T>(value, field);
    }
}

template <typename T>
T number_value(const nlohmann::json& value, const std::string& field)
{
    if (value.is_null()) return missing_value<T>();
    if (value.is_string()) {
        const auto special = non_finite(value.get_ref<const std::string&>());
        if (!special) SHARDRUN_THROW(Error, fmt::format("field '{}': {} is not a number", field, describe(value)));
        if constexpr (std::is_floating_point_v<T>) {
            return static_cast<T>(*special);
        } else {
            return missing_value<T>();
        }
    }
    if (!value.is_number()) SHARDRUN_THROW(Error, fmt::format("field '{}': {} is not a number", field, describe(value)));
    if constexpr (std::is_integral_v<T>) {
        if (!value.is_number_integer()) {
            SHARDRUN_THROW(Error, fmt::format("field '{}': {} is not an integer", field, describe(value)));
        }
        const auto wide = value.get<std::int64_t>();
        if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max()) {
            SHARDRUN_THROW(Error, fmt::format("field '{}': {} does not fit its integer type", field, wide));
        }
    }
    return value.get<T>();
}

// Flattens a nested JSON array of `shape` row-major into T values (int64 stays exact). A
// null where an array is expected is a whole missing array.
template <typename T>
void flatten(const nlohmann::json& value, const std::vector<std::size_t>& shape, size_t depth, std::vector<T>& out,
             const std::string& field)
{
    if (depth == shape.size()) {
        out.push_back(leaf_value<T>(value, field));
        return;
    }
    if (value.is_null()) {
        if constexpr (std::is_same_v<T, Flag>) not_a_bool(value, field);
        std::size_t count = 1;
        for (auto axis = depth; axis < shape.size(); ++axis) count *= shape[axis];
        out.insert(out.end(), count, missing_value<T>());
        return;
    }
    if (!value.is_array() || value.size() != shape[depth]) {
        SHARDRUN_THROW(Error, fmt::format("field '{}': expected {} values at depth {}, got {}", field, shape[depth],
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
    case io::DType::boolean: return field_bytes<Flag>(value, field);
    }
    return {};
}


// Bounds before parsing: the declared fields need about 32 characters a number; the nesting
// needs one level for the object and one per dimension.
struct Bounds {
    std::uintmax_t max_bytes;
    std::size_t depth;
};

Bounds bounds_of(const std::vector<io::FieldSpec>& fields)
{
    std::size_t elements = 0, depth = 1;
    for (const auto& field : fields) {
        elements += field.elements();
        depth = std::max(depth, field.shape.size() + 1);
    }
    return {(1u << 20) + 32 * static_cast<std::uintmax_t>(elements), depth};
}

std::string too_big(std::uintmax_t bytes, std::uintmax_t max_bytes)
{
    return fmt::format("$SHARDRUN_RESULT is {} bytes; the declared fields allow at most {}", bytes, max_bytes);
}

// The index of the quote that closes the string starting at `from` (text.size() if none). memchr
// to each quote, then the backslashes before it: an odd run escapes it. A worker's base64 answer
// is one string of megabytes, skipped here at memory speed.
std::size_t closing_quote(std::string_view text, std::size_t from)
{
    while (from < text.size()) {
        const auto* quote = static_cast<const char*>(std::memchr(text.data() + from, '"', text.size() - from));
        if (quote == nullptr) return text.size();
        const auto at = static_cast<std::size_t>(quote - text.data());
        std::size_t backslashes = 0;
        while (at - backslashes > from && text[at - backslashes - 1] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return at;
        from = at + 1;
    }
    return text.size();
}

}  // namespace

// Python's json.dumps writes NaN, Infinity and -Infinity bare, which JSON (and nlohmann)
// refuses. Where a value may stand (not inside a string, not as a key) they are quoted, so
// the parse succeeds and leaf_value converts them. nullopt (no copy) when there are none.
std::optional<std::string> quote_non_finite(std::string_view text)
{
    static constexpr std::string_view tokens[] = {"-Infinity", "Infinity", "NaN"};
    std::string out;
    std::string containers;  // '{' and '[' of the open containers
    std::size_t copied = 0;
    char previous = '\0';   // the last structural character outside strings
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            i = closing_quote(text, i + 1);
            previous = '"';
            continue;
        }
        if (c == '{' || c == '[') containers += c;
        if ((c == '}' || c == ']') && !containers.empty()) containers.pop_back();
        const bool in_array = !containers.empty() && containers.back() == '[';
        const bool value_position = previous == ':' || previous == '[' || (previous == ',' && in_array);
        if (std::isspace(static_cast<unsigned char>(c)) == 0) previous = c;
        if (!value_position) continue;
        for (const auto token : tokens) {
            if (text.substr(i, token.size()) != token) continue;
            out.append(text.substr(copied, i - copied)).append("\"").append(token).append("\"");
            i += token.size() - 1;
            copied = i + 1;
            previous = '"';
            break;
        }
    }
    if (copied == 0) return std::nullopt;
    out.append(text.substr(copied));
    return out;
}

std::variant<io::TaskValues, std::string> parse_result_json(std::string_view text,
                                                            const std::vector<io::FieldSpec>& fields,
                                                            const std::vector<bool>* given_as_files)
{
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const auto bounds = bounds_of(fields);
    const auto depth = bounds.depth;
    if (text.size() > bounds.max_bytes) return too_big(text.size(), bounds.max_bytes);
    const auto quoted = quote_non_finite(text);
    if (quoted) text = *quoted;
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text, [depth](int level, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (static_cast<std::size_t>(level) > depth) throw TooDeep{};
            return true;
        });
    } catch (const nlohmann::json::exception& error) {
        // parse_error, and out_of_range for a number too large for a double (1e400).
        return fmt::format("$SHARDRUN_RESULT is not JSON: {}", error.what());
    } catch (const TooDeep&) {
        return fmt::format("$SHARDRUN_RESULT nests deeper than its declared fields allow (at most {} level{})", depth,
                           depth == 1 ? "" : "s");
    }
    if (!document.is_object()) return std::string("$SHARDRUN_RESULT must hold a JSON object");
    io::TaskValues values;
    try {
        for (std::size_t f = 0; f < fields.size(); ++f) {
            const auto& field = fields[f];
            if (given_as_files != nullptr && (*given_as_files)[f]) {
                if (document.contains(field.name)) {
                    return fmt::format("results field '{}' is given twice: in $SHARDRUN_RESULT and as a file", field.name);
                }
                values.emplace_back();
                continue;
            }
            if (!document.contains(field.name)) return fmt::format("$SHARDRUN_RESULT lacks the declared field '{}'", field.name);
            values.push_back(to_bytes(document[field.name], field));
        }
    } catch (const std::runtime_error& error) {
        return fmt::format("$SHARDRUN_RESULT {}", error.what());
    }
    return values;
}

std::variant<io::TaskValues, std::string> read_result_json(const std::string& path,
                                                           const std::vector<io::FieldSpec>& fields,
                                                           const std::vector<bool>* given_as_files)
{
    std::ifstream stream(path, std::ios::binary);
    if (!stream) return std::string("the task did not write its result file $SHARDRUN_RESULT");
    // Checked before reading so a runaway task's huge file is never loaded into memory.
    const auto max_bytes = bounds_of(fields).max_bytes;
    std::error_code size_error;
    const auto bytes = std::filesystem::file_size(path, size_error);
    if (!size_error && bytes > max_bytes) return too_big(bytes, max_bytes);
    const std::string text{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
    return parse_result_json(text, fields, given_as_files);
}

}  // namespace shardrun::process
