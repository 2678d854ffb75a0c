#include "runner/run/setup/param_checks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runner/errors.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::run {
namespace {

// Values per sweep axis checked one by one; generated axes are monotonic, so their last value
// is checked too and the range holds between.
constexpr std::uint64_t axis_values_checked = 100000;

std::string fixed_site(const job::JobSpec& spec, const std::string& name)
{
    return spec.sites.value("params." + name, spec.sites.value("params", spec.file));
}

void check_names(const job::JobSpec& spec, const tasks::ParamTable& table)
{
    for (const auto& [path, where] : spec.sites.keys) {
        const auto problem = tasks::unknown_param_problem(table, path.substr(std::string("params.").size()));
        if (!problem.empty()) SHARDRUN_THROW(JobFileError, job::located(where, path, problem));
    }
    for (const auto& name : spec.sweep.names()) {
        const auto problem = tasks::unknown_param_problem(table, name);
        if (!problem.empty()) SHARDRUN_THROW(JobFileError, job::located(spec.sweep.name_where(name), "sweep." + name, problem));
    }
}

void check_value(const tasks::ParamTable& table, const std::string& name, const job::ParamValue& value,
                 const std::string& where)
{
    const auto* param = table.find(name);
    if (param == nullptr) return;
    const auto problem = tasks::param_problem(*param, value);
    if (!problem.empty()) SHARDRUN_THROW(JobFileError, job::located(where, "params." + name, problem));
}

void check_axis(const job::SweepDimension& axis, const tasks::ParamTable& table)
{
    const auto size = axis.size();
    const auto names = axis.names();
    std::vector<const tasks::ParamSpec*> params;
    for (const auto& name : names) params.push_back(table.find(name));
    // One map reused for every value, and the site only looked up for a value that fails: a
    // long axis must not cost an allocation per value (memory stays flat in the sweep's size).
    job::ParamMap values;
    for (std::uint64_t i = 0; i < size; i = i + 1 == axis_values_checked ? size - 1 : i + 1) {
        axis.apply(i, values);
        for (std::size_t n = 0; n < names.size(); ++n) {
            if (params[n] == nullptr) continue;
            const auto problem = tasks::param_problem(*params[n], *values.find(names[n]));
            if (!problem.empty()) SHARDRUN_THROW(JobFileError, job::located(axis.where(i, names[n]), "params." + names[n], problem));
        }
        if (i + 1 == size) break;
    }
}

std::string point_text(const job::JobSpec& spec, std::uint64_t point)
{
    job::ParamMap params;
    spec.sweep.apply(point, params);
    std::vector<std::string> parts;
    for (const auto& name : spec.sweep.names()) parts.push_back(name + "=" + job::param_text(*params.find(name)));
    return fmt::format("sweep point {}: {}", point, fmt::join(parts, ", "));
}

}  // namespace

void check_params(const job::JobSpec& spec, const tasks::ParamTable& table)
{
    if (table.open) return;
    check_names(spec, table);
    for (const auto& [name, value] : spec.params.entries()) check_value(table, name, value, fixed_site(spec, name));
    for (const auto& axis : spec.sweep.dimensions()) check_axis(*axis, table);
}

void refuse_unset_rule_param(const job::UnsetRuleParamError& error, const tasks::ParamTable& table)
{
    if (table.open || table.find(error.name()) == nullptr) throw JobFileError(error.file(), error.line(), error.what());
    // A rule compares the values the job gives its tasks, not a kind's defaults (job/gpu_checks.cpp, rule_names).
    const auto& set = error.set();
    SHARDRUN_THROW(JobFileError,
                   job::located(error.place(), "auto_device.cpu_if",
                                fmt::format("'{0}' is a parameter of {1} that this job does not set (a rule compares "
                                            "only the values the job sets); set it in params (params: {{{0}: ...}}) or "
                                            "sweep it (sweep: {{{0}: [...]}}){2}",
                                            error.name(), error.task(),
                                            set.empty() ? std::string()
                                                        : fmt::format(", or compare what the job sets: {}", fmt::join(set, ", ")))));
}

std::string locate_kind_error(const job::JobSpec& spec, std::uint64_t point, const std::string& message)
{
    const auto colon = message.find(": ");
    const auto field = colon == std::string::npos ? std::string() : message.substr(0, colon);
    const auto rest = colon == std::string::npos ? message : message.substr(colon + 2);
    const auto swept = spec.sweep.size() > 1 ? fmt::format(" ({})", point_text(spec, point)) : std::string();
    if (field.starts_with("params.")) {
        const auto name = field.substr(std::string("params.").size());
        auto where = spec.sweep.where(point, name);
        if (where.empty()) where = fixed_site(spec, name);
        return job::located(where, field, rest + swept);
    }
    if (spec.sites.values.count(field) != 0) return job::located(spec.sites.values.at(field), field, rest + swept);
    return fmt::format("{}: {}{}", spec.sites.value("task", spec.file), message, swept);
}

}  // namespace shardrun::run
