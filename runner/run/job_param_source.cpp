#include "runner/run/param_columns.hpp"

#include <variant>

namespace shardrun::run {
namespace {

enum class ColumnType { int64, float64, text };

ColumnType widen(ColumnType current, const job::ParamValue& value)
{
    if (std::holds_alternative<std::string>(value) || current == ColumnType::text) return ColumnType::text;
    if (std::holds_alternative<double>(value)) return ColumnType::float64;
    return current;
}

io::ParamColumn make_column(const std::string& name, ColumnType type)
{
    if (type == ColumnType::text) return {name, std::vector<std::string>{}};
    if (type == ColumnType::float64) return {name, std::vector<double>{}};
    return {name, std::vector<std::int64_t>{}};
}

void append(io::ParamColumn& column, const job::ParamValue& value, std::uint64_t copies)
{
    std::visit(
        [&](auto& values) {
            using T = typename std::decay_t<decltype(values)>::value_type;
            T converted{};
            if constexpr (std::is_same_v<T, std::string>) {
                converted = job::param_text(value);
            } else {
                std::visit([&](const auto& v) {
                    if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::string>) converted = static_cast<T>(v);
                }, value);
            }
            values.insert(values.end(), copies, converted);
        },
        column.values);
}

}  // namespace

TaskColumns param_columns(const PreparedJob& job)
{
    TaskColumns columns;
    const auto names = job.spec.sweep.names();
    const auto points = job.space->sweep_points();
    const auto chunks = job.space->chunks();
    std::vector<ColumnType> types(names.size(), ColumnType::int64);
    for (std::uint64_t p = 0; p < points; ++p) {
        const auto params = job.space->params_of(p * chunks);
        for (size_t i = 0; i < names.size(); ++i) types[i] = widen(types[i], *params.find(names[i]));
    }
    for (size_t i = 0; i < names.size(); ++i) {
        columns.params.push_back(make_column(names[i], types[i]));
        // Exactly T values: growing by doubling would peak at 3 x the column on rank 0.
        std::visit([&](auto& values) { values.reserve(job.task_count()); }, columns.params.back().values);
    }
    for (std::uint64_t p = 0; p < points; ++p) {
        const auto params = job.space->params_of(p * chunks);
        for (size_t i = 0; i < names.size(); ++i) append(columns.params[i], *params.find(names[i]), chunks);
    }
    if (job.space->has_ranges()) {
        columns.ranges.start.reserve(job.task_count());
        columns.ranges.end.reserve(job.task_count());
    }
    for (std::uint64_t id = 0; job.space->has_ranges() && id < job.task_count(); ++id) {
        const auto range = *job.space->range_of(id);
        columns.ranges.start.push_back(static_cast<std::int64_t>(range.start));
        columns.ranges.end.push_back(static_cast<std::int64_t>(range.end));
    }
    return columns;
}

}  // namespace shardrun::run
