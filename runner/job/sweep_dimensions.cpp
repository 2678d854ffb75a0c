#include "runner/job/sweep_dimensions.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <limits>

namespace shardrun::job {
namespace {

using tasks::ParamMap;
using tasks::ParamValue;

class ListDimension : public SweepDimension {
public:
    ListDimension(std::string name, std::vector<ParamValue> values) : name_(std::move(name)), values_(std::move(values)) {}
    std::uint64_t size() const noexcept override { return values_.size(); }
    void apply(std::uint64_t index, ParamMap& params) const override { params.set(name_, values_[index]); }
    std::vector<std::string> names() const override { return {name_}; }

private:
    std::string name_;
    std::vector<ParamValue> values_;
};

// linspace, logspace and range compute value i on demand, so a 1e9-point range costs nothing.
class ComputedDimension : public SweepDimension {
public:
    enum class Kind { linspace, logspace, float_range, int_range };
    ComputedDimension(std::string name, Kind kind, double a, double b, std::uint64_t n)
        : name_(std::move(name)), kind_(kind), a_(a), b_(b), n_(n) {}
    /** An integer range kept in int64, exact beyond 2^53. */
    ComputedDimension(std::string name, std::int64_t start, std::int64_t step, std::uint64_t n)
        : name_(std::move(name)), kind_(Kind::int_range), a_(0), b_(0), n_(n), start_(start), step_(step) {}
    std::uint64_t size() const noexcept override { return n_; }
    std::vector<std::string> names() const override { return {name_}; }
    void apply(std::uint64_t i, ParamMap& params) const override
    {
        const double t = n_ > 1 ? static_cast<double>(i) / static_cast<double>(n_ - 1) : 0.0;
        const double lin = i + 1 == n_ && n_ > 1 ? b_ : a_ + t * (b_ - a_);
        switch (kind_) {
        case Kind::linspace: params.set(name_, lin); break;
        case Kind::logspace: params.set(name_, std::pow(10.0, lin)); break;
        case Kind::float_range: params.set(name_, a_ + static_cast<double>(i) * b_); break;
        case Kind::int_range:
            params.set(name_, start_ + static_cast<std::int64_t>(i) * step_);
            break;
        }
    }

private:
    std::string name_;
    Kind kind_;
    double a_, b_;  // linspace/logspace: endpoints; float ranges: start and step
    std::uint64_t n_;
    std::int64_t start_ = 0, step_ = 0;
};

class GroupDimension : public SweepDimension {
public:
    explicit GroupDimension(std::vector<std::shared_ptr<const SweepDimension>> members) : members_(std::move(members)) {}
    std::uint64_t size() const noexcept override { return members_.front()->size(); }
    void apply(std::uint64_t index, ParamMap& params) const override
    {
        for (const auto& member : members_) member->apply(index, params);
    }
    std::vector<std::string> names() const override
    {
        std::vector<std::string> all;
        for (const auto& member : members_) all.push_back(member->names().front());
        return all;
    }

private:
    std::vector<std::shared_ptr<const SweepDimension>> members_;
};

class PointsDimension : public SweepDimension {
public:
    PointsDimension(std::vector<std::string> names, std::vector<ParamMap> points)
        : names_(std::move(names)), points_(std::move(points)) {}
    std::uint64_t size() const noexcept override { return points_.size(); }
    void apply(std::uint64_t index, ParamMap& params) const override
    {
        for (const auto& [name, value] : points_[index].entries()) params.set(name, value);
    }
    std::vector<std::string> names() const override { return names_; }

private:
    std::vector<std::string> names_;
    std::vector<ParamMap> points_;
};

double number_at(const YAML::Node& list, size_t i, const YamlContext& context, const std::string& path)
{
    const auto value = scalar_value(list[i]);
    if (const auto* integer = std::get_if<std::int64_t>(&value)) return static_cast<double>(*integer);
    if (const auto* real = std::get_if<double>(&value); real && std::isfinite(*real)) return *real;
    context.fail(list[i], fmt::format("{}[{}]", path, i), "must be a finite number");
}

std::shared_ptr<const SweepDimension> parse_generator(const std::string& name, const YAML::Node& node,
                                                      const YamlContext& context, const std::string& path)
{
    context.check_keys(node, path, {"linspace", "logspace", "range"});
    if (node.size() != 1) context.fail(node, path, "give exactly one of linspace, logspace, range");
    const auto kind = node.begin()->first.as<std::string>();
    const auto& args = node.begin()->second;
    const auto args_path = join_path(path, kind);
    if (!args.IsSequence() || args.size() != 3) {
        context.fail(args, args_path, kind == "range" ? "must be [start, stop, step]" : "must be [start, stop, count]");
    }
    const double a = number_at(args, 0, context, args_path), b = number_at(args, 1, context, args_path);
    const double c = number_at(args, 2, context, args_path);
    using Kind = ComputedDimension::Kind;
    if (kind != "range") {
        if (c < 1 || std::floor(c) != c || c > 9.2e18) {
            context.fail(args[2], args_path + "[2]", "count must be an integer between 1 and 2^63");
        }
        const double top = kind == "linspace" ? std::max(std::fabs(a), std::fabs(b)) : std::pow(10.0, std::max(a, b));
        if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(top)) {
            context.fail(args, args_path, fmt::format("its values reach {} (inf); use endpoints whose values fit a double",
                                                       top));
        }
        return std::make_shared<ComputedDimension>(name, kind == "linspace" ? Kind::linspace : Kind::logspace, a, b,
                                                   static_cast<std::uint64_t>(c));
    }
    if (c == 0) context.fail(args[2], args_path + "[2]", "step must not be 0");
    const auto start = scalar_value(args[0]), stop = scalar_value(args[1]), step = scalar_value(args[2]);
    if (std::holds_alternative<std::int64_t>(start) && std::holds_alternative<std::int64_t>(stop) &&
        std::holds_alternative<std::int64_t>(step)) {
        const auto i0 = std::get<std::int64_t>(start), i1 = std::get<std::int64_t>(stop), di = std::get<std::int64_t>(step);
        const auto span = di > 0 ? i1 - i0 : i0 - i1;
        const auto stride = di > 0 ? di : -di;
        if (span <= 0) context.fail(args, args_path, "is empty: no value lies between start and stop with this step");
        return std::make_shared<ComputedDimension>(name, i0, di, static_cast<std::uint64_t>((span + stride - 1) / stride));
    }
    const double count = std::ceil((b - a) / c);
    if (!(count >= 1)) context.fail(args, args_path, "is empty: no value lies between start and stop with this step");
    if (count > 9.2e18) context.fail(args, args_path, fmt::format("has {:.3g} values, more than a sweep can index", count));
    return std::make_shared<ComputedDimension>(name, Kind::float_range, a, c, static_cast<std::uint64_t>(count));
}

ParamMap parse_point(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    if (!node.IsMap()) context.fail(node, path, "a point must be a mapping of parameter names to values");
    ParamMap point;
    for (const auto& entry : node) {
        const auto key = entry.first.as<std::string>();
        if (!entry.second.IsScalar()) context.fail(entry.second, join_path(path, key), "must be a scalar value");
        point.set(key, scalar_value(entry.second));
    }
    return point;
}

std::vector<std::string> point_names(const ParamMap& point)
{
    std::vector<std::string> names;
    for (const auto& [name, value] : point.entries()) names.push_back(name);
    return names;
}

}  // namespace

tasks::ParamValue scalar_value(const YAML::Node& node)
{
    // Quoted scalars ("3", 'yes') are strings, as in YAML 1.2; so are y/n/on/off, which
    // yaml-cpp would otherwise read as booleans.
    if (node.Tag() == "!") return node.Scalar();
    std::int64_t integer = 0;
    double real = 0;
    if (YAML::convert<std::int64_t>::decode(node, integer)) return integer;
    if (YAML::convert<double>::decode(node, real)) return real;
    const auto& text = node.Scalar();
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
    return text;
}

std::shared_ptr<const SweepDimension> parse_axis(const std::string& name, const YAML::Node& node,
                                                 const YamlContext& context, const std::string& path)
{
    if (node.IsMap()) return parse_generator(name, node, context, path);
    if (!node.IsSequence()) context.fail(node, path, "must be a list of values or {linspace|logspace|range: [...]}");
    if (node.size() == 0) context.fail(node, path, "is an empty list; a sweep axis needs at least one value");
    std::vector<ParamValue> values;
    for (size_t i = 0; i < node.size(); ++i) {
        if (!node[i].IsScalar()) context.fail(node[i], fmt::format("{}[{}]", path, i), "must be a scalar value");
        values.push_back(scalar_value(node[i]));
    }
    return std::make_shared<ListDimension>(name, std::move(values));
}

std::vector<std::shared_ptr<const SweepDimension>> parse_zip(const YAML::Node& node, const YamlContext& context,
                                                             const std::string& path)
{
    std::vector<std::shared_ptr<const SweepDimension>> groups;
    if (node.IsSequence()) {
        for (size_t i = 0; i < node.size(); ++i) {
            auto inner = parse_zip(node[i], context, fmt::format("{}[{}]", path, i));
            groups.insert(groups.end(), inner.begin(), inner.end());
        }
        return groups;
    }
    if (!node.IsMap() || node.size() == 0) context.fail(node, path, "must map parameter names to equally long lists");
    std::vector<std::shared_ptr<const SweepDimension>> members;
    for (const auto& entry : node) {
        const auto key = entry.first.as<std::string>();
        members.push_back(parse_axis(key, entry.second, context, join_path(path, key)));
        if (members.back()->size() != members.front()->size()) {
            context.fail(entry.second, join_path(path, key),
                         fmt::format("has {} values but the first zip member has {}; zip members advance together",
                                     members.back()->size(), members.front()->size()));
        }
    }
    groups.push_back(std::make_shared<GroupDimension>(std::move(members)));
    return groups;
}

std::shared_ptr<const SweepDimension> parse_points(const YAML::Node& node, const YamlContext& context,
                                                   const std::string& path)
{
    if (!node.IsSequence() || node.size() == 0) context.fail(node, path, "must be a non-empty list of mappings");
    std::vector<ParamMap> points;
    for (size_t i = 0; i < node.size(); ++i) {
        const auto point_path = fmt::format("{}[{}]", path, i);
        points.push_back(parse_point(node[i], context, point_path));
        if (point_names(points.back()) != point_names(points.front())) {
            context.fail(node[i], point_path,
                         fmt::format("names {} but the first point names {}; every point sets the same parameters",
                                     fmt::join(point_names(points.back()), ","),
                                     fmt::join(point_names(points.front()), ",")));
        }
    }
    return std::make_shared<PointsDimension>(point_names(points.front()), std::move(points));
}

std::shared_ptr<const SweepDimension> parse_points_file(const YAML::Node& node, const YamlContext& context,
                                                        const std::string& path, const std::string& job_dir)
{
    if (!node.IsScalar()) context.fail(node, path, "must be a file name");
    std::filesystem::path file = node.Scalar();
    if (file.is_relative()) file = std::filesystem::path(job_dir) / file;
    if (std::filesystem::is_directory(file)) {
        context.fail(node, path, fmt::format("'{}' is a directory; give a YAML or JSON file of points", file.string()));
    }
    YAML::Node points;
    try {
        points = YAML::LoadFile(file.string());
    } catch (const YAML::BadFile&) {
        context.fail(node, path, fmt::format("cannot read '{}'", file.string()));
    } catch (const YAML::ParserException& error) {
        context.fail(node, path, fmt::format("'{}' line {}: {}", file.string(), error.mark.line + 1, error.msg));
    }
    return parse_points(points, YamlContext(file.string(), {}), "points");
}

}  // namespace shardrun::job
