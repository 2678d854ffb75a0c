// What one task must deliver, and how it becomes the row every task stores.
#include "runner/process/results/task_shapes.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "io/result_types.hpp"

namespace shardrun::process {
namespace {

/** The axis where a task's shape may be shorter than the declared one; nullopt when none may. */
std::optional<std::size_t> short_axis(const io::FieldSpec& field)
{
    if (!field.length_param.empty()) return field.length_axis;
    if (field.item_rows && !field.shape.empty()) return 0;
    return std::nullopt;
}

std::size_t product(const std::vector<std::size_t>& shape, std::size_t from, std::size_t to)
{
    std::size_t count = 1;
    for (auto axis = from; axis < to; ++axis) count *= shape[axis];
    return count;
}

}  // namespace

std::vector<io::FieldSpec> task_shapes(const std::vector<io::FieldSpec>& fields, std::optional<std::size_t> rows,
                                       const job::ParamMap* params)
{
    auto shapes = fields;
    for (auto& field : shapes) {
        if (field.item_rows && rows && !field.shape.empty()) field.shape[0] = *rows;
        // Every value was checked when the job was parsed (job/param_shapes.hpp): an integer of at least 1.
        if (!field.length_param.empty() && params != nullptr) {
            field.shape[field.length_axis] = static_cast<std::size_t>(params->integer(field.length_param));
        }
    }
    return shapes;
}

void pad_to_declared(io::TaskValues& values, const std::vector<io::FieldSpec>& shapes,
                     const std::vector<io::FieldSpec>& fields)
{
    for (std::size_t f = 0; f < fields.size() && f < values.size(); ++f) {
        const auto axis = short_axis(fields[f]);
        auto& bytes = values[f];
        if (!axis || bytes.size() >= fields[f].bytes()) continue;
        const auto& have = shapes[f].shape;
        const auto& want = fields[f].shape;
        // Blocks of [have[axis], inner...] elements, one per index of the axes before it, each
        // followed by (want - have)[axis] x inner fill values.
        const auto size = io::dtype_size(fields[f].dtype);
        const auto outer = product(have, 0, *axis);
        const auto inner = product(have, *axis + 1, have.size());
        const auto block = have[*axis] * inner * size;
        io::FieldSpec element;
        element.dtype = fields[f].dtype;
        std::vector<std::byte> padded;
        padded.reserve(fields[f].bytes());
        for (std::size_t o = 0; o < outer; ++o) {
            padded.insert(padded.end(), bytes.begin() + static_cast<std::ptrdiff_t>(o * block),
                          bytes.begin() + static_cast<std::ptrdiff_t>((o + 1) * block));
            io::append_fill(padded, element, (want[*axis] - have[*axis]) * inner);
        }
        bytes = std::move(padded);
    }
}

void append_lengths(io::TaskValues& values, const std::vector<io::FieldSpec>& shapes)
{
    for (const auto& field : shapes) {
        if (field.length_param.empty()) continue;
        const auto length = static_cast<std::int64_t>(field.shape[field.length_axis]);
        std::vector<std::byte> bytes(sizeof length);
        std::memcpy(bytes.data(), &length, sizeof length);
        values.push_back(std::move(bytes));
    }
}

std::string with_length_note(std::string reason, const std::vector<io::FieldSpec>& shapes)
{
    for (const auto& field : shapes) {
        if (field.length_param.empty() || reason.find("'" + field.name + "'") == std::string::npos) continue;
        reason += fmt::format("; {}'s dimension {{{}}} is {} in this task", field.name, field.length_param,
                              field.shape[field.length_axis]);
        break;
    }
    return reason;
}

}  // namespace shardrun::process
