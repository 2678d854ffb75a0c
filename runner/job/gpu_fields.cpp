// telemetry_interval, gpu_fault_limit and auto_device: how a job watches and picks its GPUs.
#include <optional>

#include "runner/job/duration.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"

namespace shardrun::job {
namespace {

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

void read_gpu_fields(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    auto& spec = job.spec;
    if (const auto node = root["telemetry_interval"]) spec.telemetry_interval_seconds = read_telemetry_interval(node, context);
    if (root["gpu_fault_limit"]) spec.gpu_fault_limit = read_int(root["gpu_fault_limit"], context, "gpu_fault_limit", 1);
    const auto& node = root["auto_device"];
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "auto_device", "must be {cpu_if: \"n < 1000\"}");
    context.check_keys(node, "auto_device", {"cpu_if"});
    const auto& rule = node["cpu_if"];
    if (!rule) context.fail(node, "auto_device.cpu_if", "missing; write e.g. cpu_if: \"n < 1000\"");
    if (!rule.IsScalar()) context.fail(rule, "auto_device.cpu_if", "must be a text such as \"n < 1000 and m < 1000\"");
    // Checked against device, exec.mode and the parameters across sections (job_checks.hpp).
    spec.auto_device_cpu_if = rule.Scalar();
    job.marks.values["auto_device"] = node.Mark();
    job.marks.values["auto_device.cpu_if"] = rule.Mark();
}

}  // namespace shardrun::job
