#include "runner/run/task_echo.hpp"

#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>

namespace shardrun::run {
namespace {

template <typename T>
nlohmann::ordered_json element(const std::byte* bytes)
{
    T value;
    std::memcpy(&value, bytes, sizeof(T));  // the stored bytes, as the output holds them (host order)
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(value)) return "nan";
        if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    }
    return value;
}

nlohmann::ordered_json element_of(io::DType dtype, const std::byte* bytes)
{
    switch (dtype) {
    case io::DType::float32: return element<float>(bytes);
    case io::DType::float64: return element<double>(bytes);
    case io::DType::int32: return element<std::int32_t>(bytes);
    case io::DType::int64: return element<std::int64_t>(bytes);
    case io::DType::boolean: return std::to_integer<int>(*bytes) != 0;
    }
    return nullptr;
}

/** Axis `axis` of `field` from `bytes` on: a value, or a list of the next axis' values. */
nlohmann::ordered_json decode(const io::FieldSpec& field, std::size_t axis, const std::byte*& bytes)
{
    if (axis == field.shape.size()) {
        auto value = element_of(field.dtype, bytes);
        bytes += io::dtype_size(field.dtype);
        return value;
    }
    auto list = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < field.shape[axis]; ++i) list.push_back(decode(field, axis + 1, bytes));
    return list;
}

}  // namespace

std::string echo_json(const io::TaskRecord& record, const io::TaskValues& values, const std::vector<io::FieldSpec>& fields)
{
    nlohmann::ordered_json line{{"task_id", record.task_id}, {"status", io::task_status_name(record.status)},
                                {"attempts", record.attempts}, {"exit_code", record.exit_code}};
    if (record.status != io::TaskStatus::ok) line["message"] = record.message;
    auto results = nlohmann::ordered_json::object();
    for (std::size_t f = 0; f < fields.size() && f < values.size(); ++f) {
        if (values[f].size() != fields[f].bytes()) continue;  // a failed task's: nothing stored
        const std::byte* bytes = values[f].data();
        results[fields[f].name] = decode(fields[f], 0, bytes);
    }
    line["results"] = std::move(results);
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace shardrun::run
