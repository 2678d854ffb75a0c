#include "runner/job/job_fields.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

namespace shardrun::job {
namespace {

const JobField& row(std::string_view path)
{
    if (const auto* field = find_job_field(path)) return *field;
    // A reader naming a path that is not in the table is a bug here, not in the job file.
    throw std::logic_error(fmt::format("job_fields: no row for '{}'", path));
}

/**
 * Defaults the reference shows otherwise than typed, because the typed one is no value a user
 * may write: a sentinel for absence that the parser refuses (max_failures' and gpu_memory's 0), or a number
 * whose unit the type does not carry (telemetry_interval's 1). Words in parentheses say what
 * absence means.
 */
constexpr std::pair<std::string_view, std::string_view> shown_defaults[] = {
    {"telemetry_interval", "1s"},
    {"max_failures", "(none: no limit)"},
    {"gpu_memory", "(none: no limit)"},
    {"schedule.max_claim", "(none: no cap)"},
};

constexpr bool every_shown_default_is_a_row()
{
    for (const auto& [path, shown] : shown_defaults) {
        if (find_job_field(path) == nullptr) return false;
    }
    return true;
}
static_assert(every_shown_default_is_a_row(), "shown_defaults names a path that is no row of job_fields");

}  // namespace

std::vector<std::string> job_field_names(std::string_view section)
{
    std::vector<std::string> names;
    for (const auto& field : job_fields) {
        if (field.section == section) names.emplace_back(field.name);
    }
    return names;
}

std::vector<std::string> job_field_choices(std::string_view path)
{
    const auto& field = row(path);
    if (field.type != FieldType::choice) throw std::logic_error(fmt::format("job_fields: '{}' is not a choice", path));
    std::vector<std::string> words;
    std::string_view rest = field.allowed;
    for (auto bar = rest.find('|'); bar != std::string_view::npos; bar = rest.find('|')) {
        words.emplace_back(rest.substr(0, bar));
        rest.remove_prefix(bar + 1);
    }
    words.emplace_back(rest);
    return words;
}

std::int64_t job_field_minimum(std::string_view path)
{
    const auto& field = row(path);
    if (field.type != FieldType::integer) throw std::logic_error(fmt::format("job_fields: '{}' is not an integer", path));
    return field.minimum;
}

std::string job_field_path(const JobField& field)
{
    return field.section.empty() ? std::string(field.name) : fmt::format("{}.{}", field.section, field.name);
}

std::string job_field_default_text(const JobField& field)
{
    struct Text {
        std::string operator()(Absent) const { return "(absent)"; }
        std::string operator()(Required) const { return "(required)"; }
        std::string operator()(Derived derived) const { return fmt::format("({})", derived.rule); }
        std::string operator()(bool value) const { return value ? "true" : "false"; }
        std::string operator()(std::int64_t value) const { return std::to_string(value); }
        std::string operator()(double value) const { return fmt::format("{}", value); }
        std::string operator()(std::string_view value) const { return std::string(value); }
    };
    const auto path = job_field_path(field);
    for (const auto& [shown_path, shown] : shown_defaults) {
        if (shown_path == path) return std::string(shown);
    }
    return std::visit(Text{}, field.fallback);
}

std::string job_field_allowed_text(const JobField& field)
{
    switch (field.type) {
    case FieldType::integer:
        return field.allowed.empty() ? fmt::format("an integer >= {}", field.minimum)
                                     : fmt::format("an integer >= {}; {}", field.minimum, field.allowed);
    case FieldType::choice: return fmt::format("{}", fmt::join(job_field_choices(job_field_path(field)), ", "));
    default: return std::string(field.allowed);
    }
}

}  // namespace shardrun::job
