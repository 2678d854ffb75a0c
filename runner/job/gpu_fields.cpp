#include "runner/job/gpu_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runner/errors.hpp"
#include "runner/gpu/cpu_rule.hpp"
#include "runner/job/duration.hpp"
#include "runner/job/job_sections.hpp"

namespace shardrun::job {
namespace {

// The names a rule may compare: what the job sets for its tasks. A kind's defaults are left
// out: a rule on a value no task sets would hold for all or none of them alike.
std::vector<std::string> rule_names(const JobSpec& spec)
{
    auto names = spec.sweep.names();
    for (const auto& entry : spec.params.entries()) {
        if (std::find(names.begin(), names.end(), entry.first) == names.end()) names.push_back(entry.first);
    }
    return names;
}

/** `telemetry_interval`: off (or 0), or a period of at least 100 ms (NVML averages utilisation over ~1/6 s). */
double read_telemetry_interval(const YAML::Node& node, const YamlContext& context)
{
    if (node.IsScalar() && node.Scalar() == "off") return 0;
    const auto seconds = node.IsScalar() ? parse_duration(node.Scalar()) : std::nullopt;
    if (!seconds || (*seconds > 0 && *seconds < 0.1)) {
        context.fail(node, "telemetry_interval", "must be off (or 0), or a period of at least 100ms such as 1, 500ms or 5s");
    }
    return *seconds;
}

}  // namespace

void parse_gpu_fields(const YAML::Node& root, const YamlContext& context, JobSpec& spec)
{
    if (const auto node = root["telemetry_interval"]) spec.telemetry_interval_seconds = read_telemetry_interval(node, context);
    if (root["gpu_fault_limit"]) spec.gpu_fault_limit = read_int(root["gpu_fault_limit"], context, "gpu_fault_limit", 1);
    const auto& node = root["auto_device"];
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "auto_device", "must be {cpu_if: \"n < 1000\"}");
    context.check_keys(node, "auto_device", {"cpu_if"});
    const auto& rule = node["cpu_if"];
    if (!rule) context.fail(node, "auto_device.cpu_if", "missing; write e.g. cpu_if: \"n < 1000\"");
    if (!rule.IsScalar()) context.fail(rule, "auto_device.cpu_if", "must be a text such as \"n < 1000 and m < 1000\"");
    if (spec.device != DevicePreference::automatic) {
        context.fail(node, "auto_device", fmt::format("routes tasks under device: auto, but this job says device: {}; "
                                                      "use device: auto, or leave auto_device out",
                                                      spec.device == DevicePreference::cpu ? "cpu" : "cuda"));
    }
    if (spec.task == "exec" && spec.exec.mode == ExecSpec::Mode::worker) {
        context.fail(node, "auto_device", "cannot route single tasks with exec.mode: worker (one process per rank sees "
                                          "one set of GPUs); use exec.mode: task, or leave auto_device out");
    }
    try {
        gpu::parse_cpu_rule(rule.Scalar(), rule_names(spec));
    } catch (const gpu::CpuRuleError& error) {
        // The column of the rule's text: past its opening quote when it has one.
        auto mark = rule.Mark();
        const bool quoted = mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < spec.text.size() &&
                            (spec.text[mark.pos] == '"' || spec.text[mark.pos] == '\'');
        const auto where = context.where(rule, "auto_device.cpu_if");
        const auto at = where.rfind(':');
        const bool in_file = at != std::string::npos && where.rfind("--set", 0) != 0 && mark.column >= 0;
        const auto place = in_file ? fmt::format("{}:{}", where.substr(0, at),
                                                 mark.column + 1 + (quoted ? 1 : 0) + static_cast<int>(error.column()))
                                   : where;
        SHARDRUN_THROW(JobFileError, located(place, "auto_device.cpu_if", one_line(error.what())));
    }
    spec.auto_device_cpu_if = rule.Scalar();
}

}  // namespace shardrun::job
