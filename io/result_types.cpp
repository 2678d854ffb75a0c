#include "io/result_types.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace shardrun::io {
namespace {

template <typename T>
void append_value(std::vector<std::byte>& out, T value, std::size_t count)
{
    const auto offset = out.size();
    out.resize(offset + count * sizeof(T));
    for (std::size_t i = 0; i < count; ++i) std::memcpy(out.data() + offset + i * sizeof(T), &value, sizeof(T));
}

}  // namespace

std::size_t dtype_size(DType dtype) noexcept
{
    switch (dtype) {
    case DType::float32: return 4;
    case DType::float64: return 8;
    case DType::int32: return 4;
    case DType::int64: return 8;
    case DType::boolean: return 1;
    }
    return 0;
}

const char* dtype_name(DType dtype) noexcept
{
    switch (dtype) {
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::boolean: return "bool";
    }
    return "?";
}

std::size_t FieldSpec::elements() const noexcept
{
    std::size_t count = 1;
    for (const auto extent : shape) count *= extent;
    return count;
}

bool holds_only_bools(const std::vector<std::byte>& values) noexcept
{
    return std::all_of(values.begin(), values.end(), [](std::byte b) { return std::to_integer<int>(b) <= 1; });
}

std::string length_field_name(const std::string& field)
{
    return field + "_length";
}

const char* task_status_name(TaskStatus status) noexcept
{
    switch (status) {
    case TaskStatus::pending: return "pending";
    case TaskStatus::ok: return "ok";
    case TaskStatus::failed: return "failed";
    case TaskStatus::skipped: return "skipped";
    }
    return "?";
}

void append_fill(std::vector<std::byte>& out, const FieldSpec& spec, std::size_t rows)
{
    const std::size_t count = rows * spec.elements();
    switch (spec.dtype) {
    case DType::float32: append_value(out, std::numeric_limits<float>::quiet_NaN(), count); break;
    case DType::float64: append_value(out, std::numeric_limits<double>::quiet_NaN(), count); break;
    case DType::int32: append_value(out, std::numeric_limits<std::int32_t>::min(), count); break;
    case DType::int64: append_value(out, std::numeric_limits<std::int64_t>::min(), count); break;
    case DType::boolean: append_value(out, std::uint8_t{0}, count); break;
    }
}

}  // namespace shardrun::io
