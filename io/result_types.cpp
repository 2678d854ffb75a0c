#include "io/result_types.hpp"

namespace shardrun::io {

std::size_t dtype_size(DType dtype) noexcept
{
    switch (dtype) {
    case DType::float32: return 4;
    case DType::float64: return 8;
    case DType::int32: return 4;
    case DType::int64: return 8;
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
    }
    return "?";
}

std::size_t FieldSpec::elements() const noexcept
{
    std::size_t count = 1;
    for (const auto extent : shape) count *= extent;
    return count;
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

}  // namespace shardrun::io
