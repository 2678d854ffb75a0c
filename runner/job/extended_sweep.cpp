// Stable ids for a sweep that gained values: the old ids first, the added points appended.
#include "runner/job/extended_sweep.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "runner/errors.hpp"

namespace shardrun::job {
namespace {

/** Value `index` of `dimension` as text that is equal exactly when the values are (type included). */
std::string value_key(const SweepDimension& dimension, std::uint64_t index)
{
    ParamMap params;
    dimension.apply(index, params);
    std::string key;
    // Not a structured binding: clang 14 (the fuzzing build) cannot capture one in the lambda.
    for (const auto& entry : params.entries()) {
        const auto& name = entry.first;
        const auto type = entry.second.index();
        key += std::visit([&](const auto& v) { return fmt::format("{}={}:{}\n", name, type, v); }, entry.second);
    }
    return key;
}

/** Per axis of `now`, whether each of its values is one of `old`'s same axis. */
std::vector<std::vector<bool>> known_values(const Sweep& old, const Sweep& now)
{
    std::vector<std::vector<bool>> known;
    for (std::size_t d = 0; d < now.dimensions().size(); ++d) {
        std::set<std::string> before;
        const auto& o = *old.dimensions()[d];
        for (std::uint64_t i = 0; i < o.size(); ++i) before.insert(value_key(o, i));
        const auto& n = *now.dimensions()[d];
        known.emplace_back(n.size());
        for (std::uint64_t i = 0; i < n.size(); ++i) known.back()[i] = before.count(value_key(n, i)) != 0;
    }
    return known;
}

/** The points of `now` that `old` lacks, in `now`'s order (an axis value new to the point). */
std::vector<std::uint64_t> added_points(const Sweep& old, const Sweep& now, const std::string& file)
{
    if (old.dimensions().size() != now.dimensions().size()) {
        SHARDRUN_THROW(JobFileError, file + ": the sweep's axes changed; --resume extends a sweep only by values");
    }
    const auto known = known_values(old, now);
    std::vector<std::uint64_t> added;
    for (std::uint64_t point = 0; point < now.size(); ++point) {
        auto rest = point;
        bool is_new = false;
        for (auto d = known.size(); d-- > 0;) {
            is_new = is_new || !known[d][rest % known[d].size()];
            rest /= known[d].size();
        }
        if (is_new) added.push_back(point);
    }
    if (now.size() - added.size() != old.size()) {
        SHARDRUN_THROW(JobFileError, fmt::format("{}: {} of the sweep's {} earlier points are not in it by value (a value "
                                                 "whose type changed, 1 against 1.0?); use --force to start over",
                                                 file, old.size() - (now.size() - added.size()), old.size()));
    }
    return added;
}

/** One axis: the first job's points, then each extension's added points. */
class ExtendedPoints : public SweepDimension {
public:
    ExtendedPoints(std::vector<Sweep> jobs, std::vector<std::vector<std::uint64_t>> added)
        : jobs_(std::move(jobs)), added_(std::move(added)), size_(jobs_.front().size())
    {
        for (const auto& points : added_) size_ += points.size();
    }
    std::uint64_t size() const noexcept override { return size_; }
    void apply(std::uint64_t index, ParamMap& params) const override
    {
        if (index < jobs_.front().size()) return jobs_.front().apply(index, params);
        index -= jobs_.front().size();
        for (std::size_t j = 0; j < added_.size(); ++j) {
            if (index < added_[j].size()) return jobs_[j + 1].apply(added_[j][index], params);
            index -= added_[j].size();
        }
    }
    std::vector<std::string> names() const override { return jobs_.back().names(); }

private:
    std::vector<Sweep> jobs_;
    std::vector<std::vector<std::uint64_t>> added_;  // per extension, points of its own product
    std::uint64_t size_;
};

}  // namespace

Sweep resolved_sweep(const std::string& resolved, const std::string& file)
{
    const auto root = YAML::Load(resolved);
    if (!root["sweep"]) return Sweep();
    YAML::Node sweep;
    for (const auto& entry : root["sweep"]) {
        const auto key = entry.first.as<std::string>();
        sweep[key == "points_file" ? "points" : key] = entry.second;
    }
    return parse_sweep(sweep, YamlContext(file, {}), ".");
}

Sweep extended_sweep(const std::vector<std::string>& jobs, const std::string& file)
{
    std::vector<Sweep> sweeps;
    for (const auto& job : jobs) sweeps.push_back(resolved_sweep(job, file));
    std::vector<std::vector<std::uint64_t>> added;
    for (std::size_t j = 1; j < sweeps.size(); ++j) added.push_back(added_points(sweeps[j - 1], sweeps[j], file));
    return Sweep({std::make_shared<const ExtendedPoints>(std::move(sweeps), std::move(added))});
}

}  // namespace shardrun::job
