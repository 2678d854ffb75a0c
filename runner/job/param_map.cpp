#include "runner/job/param_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/errors.hpp"

namespace shardrun::job {

std::string param_text(const ParamValue& value)
{
    struct Visitor {
        std::string operator()(std::int64_t v) const { return std::to_string(v); }
        std::string operator()(double v) const { return fmt::format("{}", v); }
        std::string operator()(bool v) const { return v ? "true" : "false"; }
        std::string operator()(const std::string& v) const { return v; }
    };
    return std::visit(Visitor{}, value);
}

void ParamMap::set(std::string name, ParamValue value)
{
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                                     [](const auto& entry, const std::string& key) { return entry.first < key; });
    if (it != entries_.end() && it->first == name) {
        it->second = std::move(value);
    } else {
        entries_.emplace(it, std::move(name), std::move(value));
    }
}

const ParamValue* ParamMap::find(std::string_view name) const noexcept
{
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                                     [](const auto& entry, std::string_view key) { return entry.first < key; });
    return it != entries_.end() && it->first == name ? &it->second : nullptr;
}

double ParamMap::number(std::string_view name) const
{
    const auto* value = find(name);
    if (value == nullptr) SHARDRUN_THROW(JobFileError, fmt::format("params.{}: missing; this task kind needs it", name));
    if (const auto* i = std::get_if<std::int64_t>(value)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(value)) return *d;
    SHARDRUN_THROW(JobFileError, fmt::format("params.{}: '{}' is not a number", name, param_text(*value)));
}

double ParamMap::number_or(std::string_view name, double fallback) const
{
    return contains(name) ? number(name) : fallback;
}

std::int64_t ParamMap::integer(std::string_view name) const
{
    const double value = number(name);
    if (std::floor(value) != value || !std::isfinite(value)) {
        SHARDRUN_THROW(JobFileError, fmt::format("params.{}: {} is not an integer", name, value));
    }
    if (const auto* i = std::get_if<std::int64_t>(find(name))) return *i;
    return static_cast<std::int64_t>(value);
}

std::int64_t ParamMap::integer_or(std::string_view name, std::int64_t fallback) const
{
    return contains(name) ? integer(name) : fallback;
}

std::string ParamMap::text(std::string_view name) const
{
    const auto* value = find(name);
    if (value == nullptr) SHARDRUN_THROW(JobFileError, fmt::format("params.{}: missing; this task kind needs it", name));
    return param_text(*value);
}

std::string ParamMap::text_or(std::string_view name, std::string fallback) const
{
    return contains(name) ? text(name) : fallback;
}

}  // namespace shardrun::job
