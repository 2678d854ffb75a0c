#pragma once

// @internal The sweep's axis types, used by sweep_dimensions.cpp (which parses them) and
// param_shapes.cpp (which bounds a generated axis by its ends: monotonic()).

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runner/job/sweep.hpp"

namespace shardrun::job::axes {

class ListDimension : public SweepDimension {
public:
    ListDimension(std::string name, std::vector<ParamValue> values, ValueSites sites, std::string name_site)
        : name_(std::move(name)), values_(std::move(values)), sites_(std::move(sites)), name_site_(std::move(name_site)) {}
    std::uint64_t size() const noexcept override { return values_.size(); }
    void apply(std::uint64_t index, ParamMap& params) const override { params.set(name_, values_[index]); }
    std::vector<std::string> names() const override { return {name_}; }
    std::string where(std::uint64_t index, std::string_view) const override { return sites_.at(index); }
    std::string name_where(std::string_view) const override { return name_site_; }

private:
    std::string name_;
    std::vector<ParamValue> values_;
    ValueSites sites_;
    std::string name_site_;
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
    /** A generated value is reported at the generator's arguments. */
    void locate(std::string site, std::string name_site)
    {
        site_ = std::move(site);
        name_site_ = std::move(name_site);
    }
    std::string where(std::uint64_t, std::string_view) const override { return site_; }
    std::string name_where(std::string_view) const override { return name_site_; }
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
    std::string site_, name_site_;
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
    std::string where(std::uint64_t index, std::string_view name) const override
    {
        const auto* member = member_of(name);
        return member ? member->where(index, name) : "";
    }
    std::string name_where(std::string_view name) const override
    {
        const auto* member = member_of(name);
        return member ? member->name_where(name) : "";
    }
    /** The member axis that sets `name`; nullptr when none does. */
    const SweepDimension* member_of(std::string_view name) const
    {
        for (const auto& member : members_) {
            if (member->names().front() == name) return member.get();
        }
        return nullptr;
    }

private:
    std::vector<std::shared_ptr<const SweepDimension>> members_;
};

// Sites hold one location per point and name, names_ in sorted order as ParamMap keeps them.
class PointsDimension : public SweepDimension {
public:
    PointsDimension(std::vector<std::string> names, std::vector<ParamMap> points, ValueSites sites,
                    std::vector<std::string> name_sites)
        : names_(std::move(names)), points_(std::move(points)), sites_(std::move(sites)),
          name_sites_(std::move(name_sites)) {}
    std::uint64_t size() const noexcept override { return points_.size(); }
    void apply(std::uint64_t index, ParamMap& params) const override
    {
        for (const auto& [name, value] : points_[index].entries()) params.set(name, value);
    }
    std::vector<std::string> names() const override { return names_; }
    std::string where(std::uint64_t index, std::string_view name) const override
    {
        return sites_.at(index * names_.size() + slot(name));
    }
    std::string name_where(std::string_view name) const override
    {
        const auto i = slot(name);
        return i < name_sites_.size() ? name_sites_[i] : "";
    }

private:
    std::size_t slot(std::string_view name) const
    {
        return static_cast<std::size_t>(std::find(names_.begin(), names_.end(), name) - names_.begin());
    }

    std::vector<std::string> names_;
    std::vector<ParamMap> points_;
    ValueSites sites_;
    std::vector<std::string> name_sites_;
};

/**
 * True when the values `dimension` gives `name` only grow or only shrink with the index (a
 * generated axis: linspace, logspace, range, alone or in a zip:), so its first and last
 * values bound all the others.
 */
inline bool monotonic(const SweepDimension& dimension, std::string_view name)
{
    if (dynamic_cast<const ComputedDimension*>(&dimension) != nullptr) return true;
    const auto* group = dynamic_cast<const GroupDimension*>(&dimension);
    const auto* member = group != nullptr ? group->member_of(name) : nullptr;
    return member != nullptr && monotonic(*member, name);
}

}  // namespace shardrun::job::axes
