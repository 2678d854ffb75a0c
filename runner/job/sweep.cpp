#include "runner/job/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "runner/job/sweep_dimensions.hpp"

namespace shardrun::job {

Sweep::Sweep(std::vector<std::shared_ptr<const SweepDimension>> dimensions) : dimensions_(std::move(dimensions))
{
    for (const auto& dimension : dimensions_) {
        const auto size = dimension->size();
        if (size != 0 && size_ > std::numeric_limits<std::uint64_t>::max() / size) {
            throw std::overflow_error("the sweep has more than 2^64 points");
        }
        size_ *= size;
    }
}

void Sweep::apply(std::uint64_t point, ParamMap& params) const
{
    for (auto it = dimensions_.rbegin(); it != dimensions_.rend(); ++it) {
        const auto size = (*it)->size();
        (*it)->apply(point % size, params);
        point /= size;
    }
}

std::string ValueSites::at(std::uint64_t index) const
{
    if (index >= marks.size()) return whole;
    return fmt::format("{}:{}:{}", file, marks[index].first, marks[index].second);
}

std::string Sweep::where(std::uint64_t point, std::string_view name) const
{
    for (auto it = dimensions_.rbegin(); it != dimensions_.rend(); ++it) {
        const auto size = (*it)->size();
        const auto names = (*it)->names();
        if (std::find(names.begin(), names.end(), name) != names.end()) return (*it)->where(point % size, name);
        point /= size;
    }
    return "";
}

std::string Sweep::name_where(std::string_view name) const
{
    for (const auto& dimension : dimensions_) {
        const auto names = dimension->names();
        if (std::find(names.begin(), names.end(), name) != names.end()) return dimension->name_where(name);
    }
    return "";
}

std::vector<std::string> Sweep::names() const
{
    std::vector<std::string> all;
    for (const auto& dimension : dimensions_) {
        for (auto& name : dimension->names()) all.push_back(std::move(name));
    }
    return all;
}

Sweep parse_sweep(const YAML::Node& node, const YamlContext& context, const std::string& job_dir, SweepSources* sources)
{
    if (!node || node.IsNull()) return Sweep();
    if (!node.IsMap()) context.fail(node, "sweep", "must be a mapping of parameter names to values");
    std::vector<std::shared_ptr<const SweepDimension>> dimensions;
    std::set<std::string> seen;
    for (const auto& entry : node) {
        const auto key = entry.first.as<std::string>();
        const auto path = join_path("sweep", key);
        if (sources) sources->marks[path] = entry.second.Mark();
        std::shared_ptr<const SweepDimension> dimension;
        if (key == "zip") {
            for (auto& group : parse_zip(entry.second, context, path)) {
                for (const auto& name : group->names()) context.check_dataset_name(entry.first, path, name);
                dimensions.push_back(std::move(group));
            }
            continue;
        }
        if (key == "points") {
            dimension = parse_points(entry.second, context, path);
        } else if (key == "points_file") {
            dimension = parse_points_file(entry.second, context, path, job_dir, sources ? &sources->points_file : nullptr);
        } else {
            dimension = parse_axis(entry.first, entry.second, context, path);
        }
        for (const auto& name : dimension->names()) context.check_dataset_name(entry.first, path, name);
        dimensions.push_back(std::move(dimension));
    }
    for (const auto& dimension : dimensions) {
        for (const auto& name : dimension->names()) {
            if (!seen.insert(name).second) {
                context.fail(node, "sweep", fmt::format("parameter '{}' is swept twice", name));
            }
        }
    }
    try {
        return Sweep(std::move(dimensions));
    } catch (const std::overflow_error& error) {
        context.fail(node, "sweep", error.what());
    }
}

}  // namespace shardrun::job
