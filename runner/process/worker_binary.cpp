#include "runner/process/worker_binary.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>

namespace shardrun::process {
namespace {

// 6-bit value of each base64 character; 64 marks a character outside the alphabet.
constexpr std::array<std::uint8_t, 256> base64_values()
{
    std::array<std::uint8_t, 256> table{};
    for (auto& value : table) value = 64;
    constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) table[static_cast<unsigned char>(alphabet[i])] = static_cast<std::uint8_t>(i);
    return table;
}

/**
 * Decodes `text` (a multiple of 4 characters, `padding` '=' at its end) into `out`, which has
 * room for text.size() / 4 * 3 - padding bytes. A table and four characters a step: answers of
 * megabytes are decoded at memory speed (benchmarks/worker/answer-transport). @return false
 * on a character outside the alphabet
 */
bool decode_base64(std::string_view text, std::size_t padding, std::byte* out)
{
    static constexpr auto values = base64_values();
    const auto value = [&](std::size_t i) { return values[static_cast<unsigned char>(text[i])]; };
    const std::size_t full = text.size() - (padding > 0 ? 4 : 0);
    for (std::size_t i = 0; i < full; i += 4) {
        const std::uint32_t a = value(i), b = value(i + 1), c = value(i + 2), d = value(i + 3);
        if ((a | b | c | d) & 64) return false;
        const std::uint32_t bits = a << 18 | b << 12 | c << 6 | d;
        *out++ = static_cast<std::byte>(bits >> 16);
        *out++ = static_cast<std::byte>(bits >> 8);
        *out++ = static_cast<std::byte>(bits);
    }
    if (padding == 0) return true;
    // The last quantum: 2 or 3 characters, then '='.
    std::uint32_t bits = 0;
    for (std::size_t i = full; i < text.size() - padding; ++i) {
        if (value(i) & 64) return false;
        bits = bits << 6 | value(i);
    }
    bits <<= 6 * padding;
    *out++ = static_cast<std::byte>(bits >> 16);
    if (padding == 1) *out = static_cast<std::byte>(bits >> 8);
    return true;
}

std::string shape_text(const std::vector<std::size_t>& shape)
{
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace

bool is_binary_result(const nlohmann::json& value)
{
    return value.is_object() && value.contains("base64");
}

std::variant<std::vector<std::byte>, std::string> decode_binary_result(const nlohmann::json& value,
                                                                        const io::FieldSpec& field)
{
    const auto dtype = value.find("dtype");
    const auto shape = value.find("shape");
    const auto& data = value["base64"];
    if (dtype == value.end() || *dtype != io::dtype_name(field.dtype)) {
        return fmt::format("results field '{}': binary dtype {} is not its declared {}", field.name,
                           dtype == value.end() ? "missing" : dtype->dump(), io::dtype_name(field.dtype));
    }
    // A scalar field is a shape [] array; a shape [1] is accepted for it too, as a list of one would not be.
    const bool shape_ok = shape != value.end() && shape->is_array() &&
                          (*shape == nlohmann::json(field.shape) || (field.shape.empty() && *shape == nlohmann::json{1}));
    if (!shape_ok) {
        const auto given = shape == value.end() ? std::string("missing") : shape->dump();
        if (field.item_rows) {
            return fmt::format("results field '{}': binary shape {} is not this task's {} (a rows field answers "
                               "end - start = {} rows of its range)", field.name, given, shape_text(field.shape),
                               field.shape.front());
        }
        return fmt::format("results field '{}': binary shape {} is not its declared {}", field.name, given,
                           shape_text(field.shape));
    }
    if (!data.is_string()) return fmt::format("results field '{}': base64 must be a string", field.name);
    const auto& text = data.get_ref<const std::string&>();
    std::size_t padding = 0;
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
    const std::size_t decoded = text.size() / 4 * 3 - std::min(padding, text.size() / 4 * 3);
    if (text.size() % 4 != 0 || decoded != field.bytes()) {
        return fmt::format("results field '{}': base64 holds {} bytes, its declared shape needs {}", field.name,
                           decoded, field.bytes());
    }
    std::vector<std::byte> bytes(field.bytes());
    if (!decode_base64(text, padding, bytes.data())) {
        return fmt::format("results field '{}': base64 holds a character outside the base64 alphabet", field.name);
    }
    if (field.dtype == io::DType::boolean && !io::holds_only_bools(bytes)) {
        return fmt::format("results field '{}': a bool byte other than 0 or 1", field.name);
    }
    return bytes;
}

}  // namespace shardrun::process
