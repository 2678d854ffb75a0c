#include "runner/tasks/param_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/job/yaml_context.hpp"

namespace shardrun::tasks {
namespace {

ParamSpec make(std::string name, ParamType type, std::optional<job::ParamValue> value, std::string computed_text,
               std::string doc)
{
    ParamSpec spec;
    spec.name = std::move(name);
    spec.type = type;
    // The printed default is the typed value's own text, so the two cannot disagree.
    spec.default_text = value ? job::param_text(*value) : std::move(computed_text);
    spec.value = std::move(value);
    spec.doc = std::move(doc);
    return spec;
}

ParamSpec ranged(ParamSpec spec, ParamRange range)
{
    spec.range = range;
    return spec;
}

// YAML scalars reach a job::ParamMap typed: 3 is int64, 3.0 and .nan are double, yes/true bool.
std::optional<double> number_of(const job::ParamValue& value)
{
    if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&value)) return *d;
    return std::nullopt;
}

std::string quoted(const job::ParamValue& value)
{
    return std::holds_alternative<std::string>(value) || std::holds_alternative<bool>(value)
               ? fmt::format("'{}'", job::param_text(value))
               : job::param_text(value);
}

std::string without_digits(std::string word)
{
    std::erase_if(word, [](char c) { return c >= '0' && c <= '9'; });
    return word;
}

std::string numeric_problem(const ParamSpec& spec, const job::ParamValue& value)
{
    const auto number = number_of(value);
    if (!number) return fmt::format("{} is not a number; allowed: {}", quoted(value), spec.allowed());
    if (!std::isfinite(*number)) return fmt::format("{} = {} is not a finite number", spec.name, job::param_text(value));
    // job::ParamMap::integer() takes 4.0 for 4, as YAML writes 1e3 as a float.
    if (spec.type == ParamType::integer && (std::floor(*number) != *number || std::fabs(*number) > 9.0e18)) {
        return fmt::format("{} is not an integer; allowed: {}", job::param_text(value), spec.allowed());
    }
    if (!spec.range.contains(*number)) {
        return fmt::format("{} = {} must be {}", spec.name, job::param_text(value), spec.range.text());
    }
    return "";
}

}  // namespace

const char* param_type_name(ParamType type) noexcept
{
    switch (type) {
    case ParamType::integer: return "integer";
    case ParamType::number: return "number";
    case ParamType::choice: return "choice";
    case ParamType::text: break;
    }
    return "text";
}

std::string ParamRange::text() const
{
    if (low && high) {
        return fmt::format("in {}{}, {}{}", low_open ? "(" : "[", *low, *high, high_open ? ")" : "]");
    }
    if (low) return fmt::format("{} {}", low_open ? ">" : ">=", *low);
    if (high) return fmt::format("{} {}", high_open ? "<" : "<=", *high);
    return "";
}

bool ParamRange::contains(double value) const noexcept
{
    if (low && (low_open ? !(value > *low) : !(value >= *low))) return false;
    if (high && (high_open ? !(value < *high) : !(value <= *high))) return false;
    return true;
}

ParamRange above(double low) { return {low, std::nullopt, true, false}; }
ParamRange at_least(double low) { return {low, std::nullopt, false, false}; }
ParamRange above_up_to(double low, double high) { return {low, high, true, false}; }
ParamRange from_below(double low, double high) { return {low, high, false, true}; }

std::string ParamSpec::allowed() const
{
    const auto bounds = range.text();
    switch (type) {
    case ParamType::integer: return bounds.empty() ? "an integer" : "an integer " + bounds;
    case ParamType::number: return bounds.empty() ? "a number" : "a number " + bounds;
    case ParamType::choice: return fmt::format("{}", fmt::join(choices, ", "));
    case ParamType::text: break;
    }
    return "any text";
}

const ParamSpec* ParamTable::find(std::string_view name) const noexcept
{
    const auto it = std::find_if(params.begin(), params.end(), [&](const ParamSpec& spec) { return spec.name == name; });
    return it == params.end() ? nullptr : &*it;
}

std::vector<std::string> ParamTable::names() const
{
    std::vector<std::string> all;
    for (const auto& spec : params) all.push_back(spec.name);
    return all;
}

job::ParamMap ParamTable::with_defaults(const job::ParamMap& given) const
{
    auto all = given;
    for (const auto& spec : params) {
        if (spec.value && !all.contains(spec.name)) all.set(spec.name, *spec.value);
    }
    return all;
}

ComputedDefault computed(std::string text) { return ComputedDefault{std::move(text)}; }

ParamSpec integer_param(std::string name, std::int64_t value, ParamRange range, std::string doc)
{
    return ranged(make(std::move(name), ParamType::integer, job::ParamValue(value), "", std::move(doc)), range);
}

ParamSpec integer_param(std::string name, ComputedDefault value, ParamRange range, std::string doc)
{
    return ranged(make(std::move(name), ParamType::integer, std::nullopt, std::move(value.text), std::move(doc)), range);
}

ParamSpec number_param(std::string name, double value, ParamRange range, std::string doc)
{
    return ranged(make(std::move(name), ParamType::number, job::ParamValue(value), "", std::move(doc)), range);
}

ParamSpec number_param(std::string name, ComputedDefault value, ParamRange range, std::string doc)
{
    return ranged(make(std::move(name), ParamType::number, std::nullopt, std::move(value.text), std::move(doc)), range);
}

ParamSpec choice_param(std::string name, std::string value, std::vector<std::string> choices, std::string doc)
{
    auto spec = make(std::move(name), ParamType::choice, job::ParamValue(std::move(value)), "", std::move(doc));
    spec.choices = std::move(choices);
    return spec;
}

ParamSpec text_param(std::string name, ComputedDefault value, std::string doc)
{
    return make(std::move(name), ParamType::text, std::nullopt, std::move(value.text), std::move(doc));
}

std::string param_problem(const ParamSpec& spec, const job::ParamValue& value)
{
    switch (spec.type) {
    case ParamType::integer:
    case ParamType::number: return numeric_problem(spec, value);
    case ParamType::choice: {
        const auto text = job::param_text(value);
        if (std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end()) return "";
        auto suggestion = job::closest_choice(text, spec.choices);
        // float16 is another size, not a typo of float32: suggest only where the letters differ.
        if (without_digits(suggestion) == without_digits(text)) suggestion.clear();
        return fmt::format("'{}' is not allowed{}; allowed: {}", text,
                           suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion), spec.allowed());
    }
    case ParamType::text: break;
    }
    return "";
}

std::string unknown_param_problem(const ParamTable& table, std::string_view name)
{
    if (table.open || table.find(name) != nullptr) return "";
    const auto names = table.names();
    const auto suggestion = job::closest_name(name, names);
    return fmt::format("unknown parameter{}; allowed: {}",
                       suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion),
                       names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", ")));
}

}  // namespace shardrun::tasks
