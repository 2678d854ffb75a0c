#include "runner/job/sweep_dimensions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include "runner/job/sweep_axes.hpp"

namespace shardrun::job {
namespace {

using axes::ComputedDimension;
using axes::GroupDimension;
using axes::ListDimension;
using axes::PointsDimension;


// Per-value marks, unless the whole node came from --set (then one location for all).
ValueSites sites_of(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    ValueSites sites;
    sites.whole = context.where(node, path);
    if (sites.whole.starts_with("--set")) return sites;
    sites.file = context.file();
    return sites;
}

void add_mark(ValueSites& sites, const YAML::Node& node)
{
    if (!sites.whole.starts_with("--set")) sites.marks.emplace_back(node.Mark().line + 1, node.Mark().column + 1);
}

double number_at(const YAML::Node& list, size_t i, const YamlContext& context, const std::string& path)
{
    const auto value = scalar_value(list[i]);
    if (const auto* integer = std::get_if<std::int64_t>(&value)) return static_cast<double>(*integer);
    if (const auto* real = std::get_if<double>(&value); real && std::isfinite(*real)) return *real;
    context.fail(list[i], fmt::format("{}[{}]", path, i), "must be a finite number");
}

std::shared_ptr<ComputedDimension> parse_generator(const std::string& name, const YAML::Node& node,
                                                   const YamlContext& context, const std::string& path)
{
    context.check_keys(node, path, {"linspace", "logspace", "range"});
    if (node.size() != 1) context.fail(node, path, "give exactly one of linspace, logspace, range");
    const auto kind = node.begin()->first.as<std::string>();
    // A copy (a Node is a handle): the iterator's -> yields a temporary pair, so a reference
    // to its member dangles at the end of this line (ASan: stack-use-after-scope).
    const auto args = node.begin()->second;
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

/** What kind of value a sweep axis holds: one per axis (ints and floats are both numbers). */
const char* kind_of(const ParamValue& value)
{
    if (std::holds_alternative<std::string>(value)) return "text";
    if (std::holds_alternative<bool>(value)) return "a boolean";
    return "a number";
}

std::string shown(const ParamValue& value)
{
    return std::holds_alternative<std::string>(value) ? fmt::format("\"{}\"", one_line(std::get<std::string>(value)))
                                                      : param_text(value);
}

/**
 * Keeps an axis to one kind of value (issue 35, point 5): `lr: [0.1, 1, "0.01"]` once made the
 * whole axis text, and the task that got "0.01" failed long after the run started. Ints among
 * floats become floats; a value of another kind than the first is refused through
 * `fail_at(i, message)`.
 */
void keep_one_kind(std::vector<ParamValue>& values, const std::function<void(std::size_t, const std::string&)>& fail_at)
{
    bool any_float = false;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (std::string_view(kind_of(values[i])) != kind_of(values[0])) {
            fail_at(i, fmt::format("{} is {}, but the first value, {}, is {}; an axis holds one kind of value (quote "
                                   "every value to sweep text)",
                                   shown(values[i]), kind_of(values[i]), shown(values[0]), kind_of(values[0])));
        }
        any_float = any_float || std::holds_alternative<double>(values[i]);
    }
    if (!any_float) return;
    for (auto& value : values) {
        if (const auto* integer = std::get_if<std::int64_t>(&value)) value = static_cast<double>(*integer);
    }
}

ParamMap parse_point(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    if (!node.IsMap()) context.fail(node, path, "a point must be a mapping of parameter names to values");
    ParamMap point;
    for (const auto& entry : node) {
        // `- : 1` has a null key; as<std::string>() would call it "null", which no lookup finds later.
        if (!entry.first.IsScalar()) {
            context.fail(entry.first, path, "a value needs a parameter name before its colon (name: value)");
        }
        const auto key = entry.first.as<std::string>();
        if (!entry.second.IsScalar()) context.fail(entry.second, join_path(path, key), "must be a scalar value");
        point.set(key, scalar_value(entry.second));
    }
    return point;
}

// Marks of one point's values in the sorted order of its names.
void add_point_marks(ValueSites& sites, const YAML::Node& node, const std::vector<std::string>& names)
{
    for (const auto& name : names) add_mark(sites, node[name]);
}

std::vector<std::string> point_names(const ParamMap& point)
{
    std::vector<std::string> names;
    for (const auto& [name, value] : point.entries()) names.push_back(name);
    return names;
}

}  // namespace

ParamValue scalar_value(const YAML::Node& node)
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

std::shared_ptr<const SweepDimension> parse_axis(const YAML::Node& key, const YAML::Node& node,
                                                 const YamlContext& context, const std::string& path)
{
    const auto name = key.as<std::string>();
    if (node.IsMap()) {
        auto generated = parse_generator(name, node, context, path);
        const auto args = node.begin()->second;  // a copy, as in parse_generator
        generated->locate(context.where(args, join_path(path, node.begin()->first.as<std::string>())),
                          context.where(key, path));
        return generated;
    }
    if (!node.IsSequence()) context.fail(node, path, "must be a list of values or {linspace|logspace|range: [...]}");
    if (node.size() == 0) context.fail(node, path, "is an empty list; a sweep axis needs at least one value");
    std::vector<ParamValue> values;
    auto sites = sites_of(node, context, path);
    for (size_t i = 0; i < node.size(); ++i) {
        if (!node[i].IsScalar()) context.fail(node[i], fmt::format("{}[{}]", path, i), "must be a scalar value");
        values.push_back(scalar_value(node[i]));
        add_mark(sites, node[i]);
    }
    keep_one_kind(values, [&](std::size_t i, const std::string& message) {
        context.fail(node[i], fmt::format("{}[{}]", path, i), message);
    });
    return std::make_shared<ListDimension>(name, std::move(values), std::move(sites), context.where(key, path));
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
        members.push_back(parse_axis(entry.first, entry.second, context, join_path(path, key)));
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
    auto sites = sites_of(node, context, path);
    for (size_t i = 0; i < node.size(); ++i) {
        const auto point_path = fmt::format("{}[{}]", path, i);
        points.push_back(parse_point(node[i], context, point_path));
        if (point_names(points.back()) != point_names(points.front())) {
            context.fail(node[i], point_path,
                         fmt::format("names {} but the first point names {}; every point sets the same parameters",
                                     fmt::join(point_names(points.back()), ","),
                                     fmt::join(point_names(points.front()), ",")));
        }
        add_point_marks(sites, node[i], point_names(points.back()));
    }
    auto names = point_names(points.front());
    for (const auto& name : names) {
        std::vector<ParamValue> values;
        for (const auto& point : points) values.push_back(*point.find(name));
        keep_one_kind(values, [&](std::size_t i, const std::string& message) {
            context.fail(node[i][name], fmt::format("{}[{}].{}", path, i, name), message);
        });
        for (std::size_t i = 0; i < points.size(); ++i) points[i].set(name, values[i]);
    }
    std::vector<std::string> name_sites;
    for (const auto& entry : node[0]) {
        const auto key = entry.first.as<std::string>();
        const auto slot = std::find(names.begin(), names.end(), key) - names.begin();
        name_sites.resize(names.size());
        name_sites[slot] = context.where(entry.first, fmt::format("{}[0].{}", path, key));
    }
    return std::make_shared<PointsDimension>(std::move(names), std::move(points), std::move(sites), std::move(name_sites));
}

std::shared_ptr<const SweepDimension> parse_points_file(const YAML::Node& node, const YamlContext& context,
                                                        const std::string& path, const std::string& job_dir,
                                                        std::optional<YAML::Node>* contents)
{
    if (!node.IsScalar()) context.fail(node, path, "must be a file name");
    std::filesystem::path file = node.Scalar();
    // Beside the job file, said as the user would write it ("./nowhere.csv", not "././nowhere.csv").
    if (file.is_relative()) file = (std::filesystem::path(job_dir) / file).lexically_normal();
    std::error_code looked;
    if (std::filesystem::is_directory(file, looked)) {
        context.fail(node, path, fmt::format("'{}' is a directory; give a YAML or JSON file of points", file.string()));
    }
    YAML::Node points;
    try {
        points = YAML::LoadFile(file.string());
    } catch (const YAML::BadFile&) {
        std::error_code error;  // a name too long to look up is no such file too, not a second error
        context.fail(node, path, fmt::format("cannot read '{}' ({}); a path is read beside the job file", file.string(),
                                             std::filesystem::exists(file, error) ? "not readable" : "no such file"));
    } catch (const YAML::ParserException& error) {
        context.fail(node, path, fmt::format("'{}' line {}: {}", file.string(), error.mark.line + 1, error.msg));
    }
    auto dimension = parse_points(points, YamlContext(file.string(), {}), "points");
    if (contents) *contents = points;
    return dimension;
}

}  // namespace shardrun::job
