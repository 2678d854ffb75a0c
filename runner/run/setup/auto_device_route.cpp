#include "runner/run/setup/auto_device_route.hpp"

#include <algorithm>
#include <variant>

#include "runner/tasks/registry.hpp"

namespace shardrun::run {
namespace {

std::optional<double> number_of(const job::ParamValue& value)
{
    if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&value)) return *d;
    return std::nullopt;
}

// A value the task does not set: the kind's default, which may name another parameter
// (gemm's m defaults to n). `depth` stops a table whose defaults name each other in a circle.
std::optional<double> value_of(std::string_view name, const job::ParamMap& params, const tasks::ParamTable* table,
                               int depth = 0)
{
    if (const auto* value = params.find(name)) return number_of(*value);
    if (table == nullptr || depth > 4) return std::nullopt;
    const auto spec = std::find_if(table->params.begin(), table->params.end(),
                                   [&](const tasks::ParamSpec& p) { return p.name == name; });
    if (spec == table->params.end()) return std::nullopt;
    if (spec->value) return number_of(*spec->value);
    return value_of(spec->default_text, params, table, depth + 1);
}

std::vector<std::string> table_names(const tasks::ParamTable& table)
{
    std::vector<std::string> names;
    for (const auto& p : table.params) names.push_back(p.name);
    return names;
}

}  // namespace

std::optional<TaskRoute> route_of(const job::JobSpec& spec)
{
    if (spec.device != job::DevicePreference::automatic) return std::nullopt;
    const auto* kind = tasks::find_task_kind(spec.task);
    const auto* table = kind != nullptr && !kind->params->open ? kind->params : nullptr;
    if (!spec.auto_device_cpu_if.empty()) {
        // Checked when the job was parsed, against the names the job sets; the kind's are known too.
        auto names = spec.sweep.names();
        for (const auto& entry : spec.params.entries()) names.push_back(entry.first);
        if (table != nullptr) {
            const auto more = table_names(*table);
            names.insert(names.end(), more.begin(), more.end());
        }
        return TaskRoute{job::parse_cpu_rule(spec.auto_device_cpu_if, names), "auto_device.cpu_if in the job", table};
    }
    if (kind == nullptr || kind->cpu_if.empty() || table == nullptr) return std::nullopt;
    return TaskRoute{job::parse_cpu_rule(kind->cpu_if, table_names(*table)), spec.task + "'s built-in rule", table};
}

bool routes_to_cpu(const TaskRoute& route, const job::ParamMap& params)
{
    return job::cpu_rule_holds(route.rule, [&](std::string_view name) { return value_of(name, params, route.table); });
}

bool auto_sends_to_cpu(bool rank_has_gpu, const job::ParamValue* requested, bool rule_holds)
{
    if (!rank_has_gpu || !rule_holds) return false;
    if (requested == nullptr) return true;
    const auto* text = std::get_if<std::string>(requested);
    return text != nullptr && *text == "auto";
}

env::DeviceBinding routed_cpu_binding(const TaskRoute& route)
{
    env::DeviceBinding cpu;
    cpu.reason = "device: auto sent it to the CPU (" + route.origin + ": " + route.rule.text + ")";
    cpu.hide_gpus = true;
    return cpu;
}

}  // namespace shardrun::run
