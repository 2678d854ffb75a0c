#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace shardrun::job {

/** One parameter value as the job file gave it (YAML scalars keep their type). */
using ParamValue = std::variant<std::int64_t, double, bool, std::string>;

/** Text form used in argv templates, environment variables and messages ("0.1", "true"). */
std::string param_text(const ParamValue& value);

/**
 * The parameters of one task: the job's fixed `params:` overlaid by its sweep point.
 * Lookups that fail throw JobFileError naming "params.<name>".
 */
class ParamMap {
public:
    /** Adds or replaces `name`. */
    void set(std::string name, ParamValue value);

    const ParamValue* find(std::string_view name) const noexcept;
    bool contains(std::string_view name) const noexcept { return find(name) != nullptr; }

    /** A number (integer or float) parameter. */
    double number(std::string_view name) const;
    double number_or(std::string_view name, double fallback) const;
    /** An integer parameter (a float with a fractional part is an error). */
    std::int64_t integer(std::string_view name) const;
    std::int64_t integer_or(std::string_view name, std::int64_t fallback) const;
    std::string text(std::string_view name) const;
    std::string text_or(std::string_view name, std::string fallback) const;

    /** Every parameter, sorted by name. */
    const std::vector<std::pair<std::string, ParamValue>>& entries() const noexcept { return entries_; }

private:
    std::vector<std::pair<std::string, ParamValue>> entries_;
};

}  // namespace shardrun::job
