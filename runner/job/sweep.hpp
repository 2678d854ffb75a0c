#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runner/job/param_map.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * Where a sweep axis's values were written, for messages after parsing: a line and column per
 * listed value, or one location for all (a generated axis, or one set with --set).
 */
struct ValueSites {
    std::string file;
    std::string whole;                       ///< used when marks is empty
    std::vector<std::pair<int, int>> marks;  ///< 1-based line and column of value i

    /** "job.yaml:5:7", or `whole`. */
    std::string at(std::uint64_t index) const;
};

/** One axis of the sweep's cartesian product; values are computed from the index, never stored for ranges. */
class SweepDimension {
public:
    virtual ~SweepDimension() = default;
    virtual std::uint64_t size() const noexcept = 0;
    /** Sets this axis's parameters for value `index` (< size()). */
    virtual void apply(std::uint64_t index, ParamMap& params) const = 0;
    /** The parameter names this axis sets (several for zip: and points:). */
    virtual std::vector<std::string> names() const = 0;
    /** Where value `index` of `name` was written ("job.yaml:5:7", "--set sweep.n"); "" when unknown. */
    virtual std::string where(std::uint64_t /*index*/, std::string_view /*name*/) const { return ""; }
    /** Where the axis names `name` (its key); "" when unknown. */
    virtual std::string name_where(std::string_view /*name*/) const { return ""; }
};

/**
 * The parameter sweep: the cartesian product of its axes in the order the job file lists
 * them, the last axis varying fastest (like itertools.product). A zip: group or a points:
 * list is one axis. An empty sweep has one point with no parameters.
 */
class Sweep {
public:
    Sweep() = default;
    explicit Sweep(std::vector<std::shared_ptr<const SweepDimension>> dimensions);

    /** Number of points; the product of the axis sizes. */
    std::uint64_t size() const noexcept { return size_; }
    /** Sets the parameters of point `point` (< size()). */
    void apply(std::uint64_t point, ParamMap& params) const;
    /** Every swept parameter name, in axis order. */
    std::vector<std::string> names() const;
    const std::vector<std::shared_ptr<const SweepDimension>>& dimensions() const noexcept { return dimensions_; }
    /** Where the value of `name` at point `point` was written; "" when `name` is not swept. */
    std::string where(std::uint64_t point, std::string_view name) const;
    /** Where the axis that sets `name` names it; "" when `name` is not swept. */
    std::string name_where(std::string_view name) const;

private:
    std::vector<std::shared_ptr<const SweepDimension>> dimensions_;
    std::uint64_t size_ = 1;
};

/** What parse_sweep keeps for the later stages of reading a job (job_sections.hpp). */
struct SweepSources {
    std::map<std::string, YAML::Mark> marks;  ///< "sweep.<key>": the mark of each top-level key's value
    std::optional<YAML::Node> points_file;    ///< points_file:'s contents, as loaded
};

/**
 * Parses `sweep:`. Keys are parameter names with a list, {linspace: [a, b, n]},
 * {logspace: [a, b, n]} or {range: [start, stop, step]}; `zip:` (a mapping, or a list of
 * mappings) advances its members together; `points:` / `points_file:` give explicit points.
 * @param job_dir  directory points_file: is relative to
 * @param sources  when given, filled as it is read
 * @throws JobFileError naming the field
 */
Sweep parse_sweep(const YAML::Node& node, const YamlContext& context, const std::string& job_dir,
                  SweepSources* sources = nullptr);

/** A YAML scalar as a parameter value: integer, then float, then bool, else string. */
ParamValue scalar_value(const YAML::Node& node);

}  // namespace shardrun::job
