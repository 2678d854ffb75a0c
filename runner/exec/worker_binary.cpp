#include "runner/exec/worker_binary.hpp"

#include <fmt/format.h>

#include <boost/archive/iterators/binary_from_base64.hpp>
#include <boost/archive/iterators/dataflow_exception.hpp>
#include <boost/archive/iterators/transform_width.hpp>

namespace shardrun::exec {
namespace {

using Base64Decoder = boost::archive::iterators::transform_width<
    boost::archive::iterators::binary_from_base64<std::string::const_iterator>, 8, 6>;

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
    auto text = data.get<std::string>();
    std::size_t padding = 0;
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
    // The decoder knows no padding: decode zeros in its place, then drop them.
    for (std::size_t i = 0; i < padding; ++i) text[text.size() - 1 - i] = 'A';
    if (text.size() % 4 != 0 || text.size() / 4 * 3 - padding != field.bytes()) {
        return fmt::format("results field '{}': base64 holds {} bytes, its declared shape needs {}", field.name,
                           text.size() / 4 * 3 - std::min(padding, text.size() / 4 * 3), field.bytes());
    }
    std::vector<std::byte> bytes;
    bytes.reserve(field.bytes() + padding);
    try {
        for (auto it = Base64Decoder(text.cbegin()); bytes.size() < text.size() / 4 * 3; ++it) {
            bytes.push_back(static_cast<std::byte>(*it));
        }
    } catch (const boost::archive::iterators::dataflow_exception&) {
        return fmt::format("results field '{}': base64 holds a character outside the base64 alphabet", field.name);
    }
    bytes.resize(field.bytes());
    return bytes;
}

}  // namespace shardrun::exec
