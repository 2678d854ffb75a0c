#include "io/param_source.hpp"

#include <type_traits>
#include <variant>

namespace shardrun::io {
namespace {

template <typename T>
void append_slice(std::vector<T>& out, const std::vector<T>& all, std::uint64_t first, std::size_t count)
{
    out.insert(out.end(), all.begin() + static_cast<std::ptrdiff_t>(first),
               all.begin() + static_cast<std::ptrdiff_t>(first + count));
}

ParamColumn empty_column(const ParamColumnInfo& info)
{
    if (info.type == ParamType::text) return {info.name, std::vector<std::string>{}};
    if (info.type == ParamType::float64) return {info.name, std::vector<double>{}};
    return {info.name, std::vector<std::int64_t>{}};
}

}  // namespace

void start_block(const std::vector<ParamColumnInfo>& columns, std::vector<ParamColumn>& params, TaskRanges& ranges)
{
    params.clear();
    for (const auto& column : columns) params.push_back(empty_column(column));
    ranges.start.clear();
    ranges.end.clear();
}

ColumnsParamSource::ColumnsParamSource(const std::vector<ParamColumn>& params, const TaskRanges& ranges)
    : params_(params), ranges_(ranges)
{
    task_count_ = ranges.start.size();
    for (const auto& column : params) {
        const auto type = std::visit(
            [&](const auto& values) {
                using T = typename std::decay_t<decltype(values)>::value_type;
                task_count_ = values.size();
                if constexpr (std::is_same_v<T, std::string>) return ParamType::text;
                if constexpr (std::is_same_v<T, double>) return ParamType::float64;
                return ParamType::int64;
            },
            column.values);
        columns_.push_back({column.name, type});
    }
}

void ColumnsParamSource::read(std::uint64_t first, std::size_t count, std::vector<ParamColumn>& params,
                              TaskRanges& ranges) const
{
    start_block(columns_, params, ranges);
    for (std::size_t i = 0; i < params_.size(); ++i) {
        std::visit(
            [&](const auto& all) {
                using Values = std::decay_t<decltype(all)>;
                append_slice(std::get<Values>(params[i].values), all, first, count);
            },
            params_[i].values);
    }
    if (!has_ranges()) return;
    append_slice(ranges.start, ranges_.start, first, count);
    append_slice(ranges.end, ranges_.end, first, count);
}

}  // namespace shardrun::io
