#include "runner/job/section_reads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "runner/job/duration.hpp"
#include "runner/job/job_fields.hpp"

namespace shardrun::job {

std::string read_string(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    if (!node.IsScalar() || node.Scalar().empty()) context.fail(node, path, "must be a non-empty string");
    return node.Scalar();
}

std::string read_choice(const YAML::Node& node, const YamlContext& context, const std::string& path,
                        const std::vector<std::string>& allowed)
{
    if (!node.IsScalar()) {
        context.fail(node, path, fmt::format("must be one word, not a {}; allowed: {}",
                                             node.IsSequence() ? "list" : node.IsMap() ? "mapping" : "null value",
                                             fmt::join(allowed, ", ")));
    }
    const auto value = node.Scalar();
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
        const auto suggestion = closest_choice(value, allowed);
        context.fail(node, path,
                     fmt::format("'{}' is not allowed{}; allowed: {}", value,
                                 suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion),
                                 fmt::join(allowed, ", ")));
    }
    return value;
}

std::string read_choice(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    return read_choice(node, context, path, job_field_choices(path));
}

double read_duration(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    const auto seconds = node.IsScalar() ? parse_duration(node.Scalar()) : std::nullopt;
    if (!seconds) context.fail(node, path, "must be a duration such as 90, 30s, 10m, 2h or 1h30m");
    return *seconds;
}

int read_int(const YAML::Node& node, const YamlContext& context, const std::string& path, int minimum)
{
    const auto value = read_integer(node, context, path, minimum);
    if (value > std::numeric_limits<int>::max()) {
        context.fail(node, path, fmt::format("{} is too large; it must be at most {}", value, std::numeric_limits<int>::max()));
    }
    return static_cast<int>(value);
}

int read_int(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    return read_int(node, context, path, static_cast<int>(job_field_minimum(path)));
}

std::int64_t read_integer(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    return read_integer(node, context, path, job_field_minimum(path));
}

std::int64_t read_integer(const YAML::Node& node, const YamlContext& context, const std::string& path,
                          std::int64_t minimum)
{
    std::int64_t value = 0;
    double real = 0;
    if (!node.IsScalar()) {
        // e.g. --set retries.max=3 turns retries into a mapping
        context.fail(node, path, fmt::format("must be an integer (at least {}), not a {}", minimum,
                                             node.IsSequence() ? "list" : node.IsMap() ? "mapping" : "null value"));
    }
    if (!YAML::convert<std::int64_t>::decode(node, value)) {
        // 1e9 is a float in YAML; accept it when it is a whole number.
        // The range test comes first: casting a double outside int64 (1e30) is undefined.
        if (!YAML::convert<double>::decode(node, real) || !(real >= -0x1p63 && real < 0x1p63) ||
            real != static_cast<double>(static_cast<std::int64_t>(real))) {
            context.fail(node, path, fmt::format("'{}' is not an integer", node.Scalar()));
        }
        value = static_cast<std::int64_t>(real);
    }
    if (value < minimum) context.fail(node, path, fmt::format("{} is too small; it must be at least {}", value, minimum));
    return value;
}

bool read_bool(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    if (node.IsScalar()) {
        const auto& text = node.Scalar();
        if (text == "true" || text == "True" || text == "TRUE") return true;
        if (text == "false" || text == "False" || text == "FALSE") return false;
    }
    const auto shown = node.IsScalar() ? fmt::format("'{}'", node.Scalar())
                       : node.IsSequence() ? std::string("a list")
                       : node.IsMap()      ? std::string("a mapping")
                                           : std::string("a null value");
    context.fail(node, path, fmt::format("{} is not a boolean; allowed: true, false", shown));
}

}  // namespace shardrun::job
