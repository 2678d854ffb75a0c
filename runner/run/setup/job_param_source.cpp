#include "runner/run/setup/job_param_source.hpp"

#include <type_traits>
#include <variant>

namespace shardrun::run {
namespace {

io::ParamType widen(io::ParamType current, const job::ParamValue& value)
{
    if (std::holds_alternative<std::string>(value) || current == io::ParamType::text) return io::ParamType::text;
    if (std::holds_alternative<double>(value)) return io::ParamType::float64;
    return current;
}

void append(io::ParamColumn& column, const job::ParamValue& value)
{
    std::visit(
        [&](auto& values) {
            using T = typename std::decay_t<decltype(values)>::value_type;
            if constexpr (std::is_same_v<T, std::string>) {
                values.push_back(job::param_text(value));
            } else {
                T converted{};
                std::visit([&](const auto& v) {
                    if constexpr (!std::is_same_v<std::decay_t<decltype(v)>, std::string>) converted = static_cast<T>(v);
                }, value);
                values.push_back(converted);
            }
        },
        column.values);
}

}  // namespace

JobParamSource::JobParamSource(const PreparedJob& job) : job_(job)
{
    const auto names = job.spec.sweep.names();
    std::vector<io::ParamType> types(names.size(), io::ParamType::int64);
    const auto points = job.space->sweep_points();
    const auto chunks = job.space->chunks();
    auto params = job.space->params_of(0);
    for (std::uint64_t p = 0; p < points; ++p) {
        job.space->update_params(p * chunks, params);
        for (size_t i = 0; i < names.size(); ++i) types[i] = widen(types[i], *params.find(names[i]));
    }
    for (size_t i = 0; i < names.size(); ++i) columns_.push_back({names[i], types[i]});
}

void JobParamSource::read(std::uint64_t first, std::size_t count, std::vector<io::ParamColumn>& params,
                          io::TaskRanges& ranges) const
{
    io::start_block(columns_, params, ranges);
    for (auto& column : params) std::visit([&](auto& values) { values.reserve(count); }, column.values);
    const auto& space = *job_.space;
    const auto chunks = space.chunks();
    auto values = space.params_of(first);
    std::uint64_t point = space.point_of(first);
    for (std::uint64_t id = first; id < first + count; ++id) {
        if (chunks != 0 && id / chunks != point) {
            point = id / chunks;
            space.update_params(id, values);
        }
        for (std::size_t i = 0; i < columns_.size(); ++i) append(params[i], *values.find(columns_[i].name));
        if (!space.has_ranges()) continue;
        const auto range = *space.range_of(id);
        ranges.start.push_back(static_cast<std::int64_t>(range.start));
        ranges.end.push_back(static_cast<std::int64_t>(range.end));
    }
}

}  // namespace shardrun::run
