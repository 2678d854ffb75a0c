// Result dimensions sized by the job: [float64, rows] by data.chunk, [float64, "{epochs}"] by the
// parameter's largest value.
#include "runner/job/param_shapes.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runner/job/job_checks.hpp"
#include "runner/job/sweep_axes.hpp"

namespace shardrun::job {
namespace {

constexpr std::uint64_t max_row_bytes = std::uint64_t{1} << 30;

const char* allowed_values = "allowed: a parameter whose every value is a whole number of at least 1";

/** Why `value` cannot be a dimension's extent; "" when it can. */
std::string extent_problem(const ParamValue& value)
{
    const auto* integer = std::get_if<std::int64_t>(&value);
    if (integer == nullptr) {
        return fmt::format("{} is not an integer", std::holds_alternative<std::string>(value)
                                                       ? fmt::format("'{}'", one_line(param_text(value)))
                                                       : param_text(value));
    }
    if (*integer < 1) return fmt::format("{} is below 1", *integer);
    return "";
}

}  // namespace

std::variant<std::uint64_t, std::string> parameter_extent(const Sweep& sweep, const ParamMap& params,
                                                          const std::string& name)
{
    if (const auto* value = params.find(name)) {
        if (auto problem = extent_problem(*value); !problem.empty()) {
            return fmt::format("{{{}}} is params.{}, and {}; {}", name, name, problem, allowed_values);
        }
        return static_cast<std::uint64_t>(std::get<std::int64_t>(*value));
    }
    for (const auto& dimension : sweep.dimensions()) {
        const auto names = dimension->names();
        if (std::find(names.begin(), names.end(), name) == names.end()) continue;
        std::uint64_t largest = 0;
        ParamMap point;
        // A generated axis of 10^9 values is bounded by its ends; a listed one is as long as the file.
        const auto size = dimension->size();
        const bool ends_only = axes::monotonic(*dimension, name) && size > 2;
        for (std::uint64_t k = 0; k < (ends_only ? 2 : size); ++k) {
            const auto i = ends_only && k == 1 ? size - 1 : k;
            dimension->apply(i, point);
            const auto* value = point.find(name);
            if (value == nullptr) continue;  // a points: entry always names every parameter; defensive
            if (auto problem = extent_problem(*value); !problem.empty()) {
                const auto site = dimension->where(i, name);
                return fmt::format("{{{}}} is swept, and its value {}{}; {}", name, problem,
                                   site.empty() ? "" : fmt::format(" (at {})", site), allowed_values);
            }
            largest = std::max(largest, static_cast<std::uint64_t>(std::get<std::int64_t>(*value)));
        }
        return largest;
    }
    auto known = sweep.names();
    for (const auto& [known_name, value] : params.entries()) known.push_back(known_name);
    std::sort(known.begin(), known.end());
    const auto suggestion = closest_name(name, known);
    // The list says what is allowed, so it names only the parameters that could size a dimension (a float
    // or text parameter is one the next error would refuse); the suggestion may be any name (a typo).
    std::vector<std::string> integers;
    for (const auto& known_name : known) {
        const auto extent = parameter_extent(sweep, params, known_name);
        if (std::holds_alternative<std::uint64_t>(extent)) integers.push_back(known_name);
    }
    return fmt::format("{{{}}} names no parameter{}; allowed: an integer parameter of params: or sweep:{}", name,
                       suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion),
                       integers.empty() ? " (this job has none)" : fmt::format(" ({})", fmt::join(integers, ", ")));
}

void resolve_param_shapes(JobRead& job, const YamlContext& context)
{
    auto& spec = job.spec;
    auto& fields = spec.exec.results;
    for (auto& field : fields) {
        if (field.length_param.empty()) continue;
        const auto path = fmt::format("exec.results.{}[{}]", field.name, field.length_axis + 1);
        const auto node = job.marks.value(path);
        const auto extent = parameter_extent(spec.sweep, spec.params, field.length_param);
        if (const auto* problem = std::get_if<std::string>(&extent)) context.fail(node, path, *problem);
        const auto largest = std::get<std::uint64_t>(extent);
        // One task's values are held in memory and written as one row: the same 1 GiB bound as a number.
        field.shape[field.length_axis] = 1;
        std::uint64_t bytes = 0;
        if (__builtin_mul_overflow(static_cast<std::uint64_t>(field.bytes()), largest, &bytes) || bytes > max_row_bytes) {
            context.fail(node, path, fmt::format("{{{}}} reaches {}, which makes one task's values larger than 1 GiB; "
                                                 "allowed: at most 1 GiB per task",
                                                 field.length_param, largest));
        }
        field.shape[field.length_axis] = static_cast<std::size_t>(largest);
        const auto length = io::length_field_name(field.name);
        const auto taken = std::find_if(fields.begin(), fields.end(), [&](const io::FieldSpec& f) { return f.name == length; });
        if (taken != fields.end()) {
            const auto at = job.marks.keys.find("exec.results." + length);
            const auto key = at != job.marks.keys.end() ? at->second : job.marks.value("exec");
            context.fail(key, "exec.results." + length,
                         fmt::format("'{}' is the length column of '{}' (its dimension {{{}}}); rename this field",
                                     length, field.name, field.length_param));
        }
    }
}

std::vector<io::FieldSpec> stored_fields(const std::vector<io::FieldSpec>& results)
{
    auto fields = results;
    for (const auto& field : results) {
        if (field.length_param.empty()) continue;
        io::FieldSpec length;
        length.name = io::length_field_name(field.name);
        length.dtype = io::DType::int64;
        fields.push_back(std::move(length));
    }
    return fields;
}

void resolve_item_rows(JobRead& job, const YamlContext& context)
{
    auto& spec = job.spec;
    for (auto& field : spec.exec.results) {
        if (!field.item_rows) continue;
        const auto path = fmt::format("exec.results.{}[1]", field.name);
        const auto mark = job.marks.value(path);
        if (!spec.data.present) {
            context.fail(mark, path, "rows (a data chunk's rows) needs data: {items: N, chunk: c}; without data: give a number");
        }
        // One task's values are held in memory and written as one row: the same 1 GiB bound as a number.
        std::uint64_t bytes = 0;
        if (__builtin_mul_overflow(static_cast<std::uint64_t>(field.bytes()), spec.data.chunk, &bytes) ||
            bytes > (std::uint64_t{1} << 30)) {
            context.fail(mark, path, "data.chunk rows make one task's values larger than 1 GiB; allowed: at most 1 GiB per task");
        }
        field.shape[0] = static_cast<std::size_t>(spec.data.chunk);
    }
}

bool has_param_shapes(const std::vector<io::FieldSpec>& fields)
{
    return std::any_of(fields.begin(), fields.end(), [](const io::FieldSpec& f) { return !f.length_param.empty(); });
}

}  // namespace shardrun::job
