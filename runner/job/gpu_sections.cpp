// The GPU keys: telemetry_interval, gpu_fault_limit, gpu_admission, auto_device (how a job watches
// and picks its GPUs), and tasks_per_gpu, gpu_sharing, gpu_threads, gpu_memory (several tasks on one GPU, issue 26).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "runner/job/byte_size.hpp"
#include "runner/job/duration.hpp"
#include "runner/job/job_fields.hpp"
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

/** A fraction in (0, 1]: gpu_admission.min_fraction and spec_fraction. */
double read_fraction(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    double value = 0;
    const bool number = node.IsScalar() && YAML::convert<double>::decode(node, value);
    if (!number || !(value > 0 && value <= 1)) {
        context.fail(node, path, fmt::format("'{}' is not allowed; a number above 0 and at most 1, such as 0.8",
                                             node.IsScalar() ? node.Scalar() : "a list or mapping"));
    }
    return value;
}

/** `gpu_admission`: off, or {min_fraction, spec_fraction, precision} (on: a mapping, even {}). */
GpuAdmissionSpec read_gpu_admission(const YAML::Node& node, const YamlContext& context)
{
    GpuAdmissionSpec admission;
    if (node.IsScalar() && (node.Scalar() == "off" || node.Scalar() == "false")) {
        admission.enabled = false;
        return admission;
    }
    if (node.IsScalar() && (node.Scalar() == "on" || node.Scalar() == "true")) return admission;
    if (!node.IsMap()) {
        context.fail(node, "gpu_admission", "must be off, on, or {min_fraction: 0.8, spec_fraction: 0.5, precision: bf16}");
    }
    context.check_keys(node, "gpu_admission", job_field_names("gpu_admission"));
    if (node["min_fraction"]) admission.min_fraction = read_fraction(node["min_fraction"], context, "gpu_admission.min_fraction");
    if (node["spec_fraction"]) {
        admission.spec_fraction = read_fraction(node["spec_fraction"], context, "gpu_admission.spec_fraction");
    }
    // A choice whose default is derived (the task's dtype), so its words are spelled here.
    if (node["precision"]) {
        admission.precision = read_choice(node["precision"], context, "gpu_admission.precision", {"bf16", "fp32", "fp64"});
    }
    return admission;
}

}  // namespace

void read_gpu_fields(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    auto& spec = job.spec;
    if (const auto node = root["telemetry_interval"]) spec.telemetry_interval_seconds = read_telemetry_interval(node, context);
    if (root["gpu_fault_limit"]) spec.gpu_fault_limit = read_int(root["gpu_fault_limit"], context, "gpu_fault_limit");
    if (const auto node = root["gpu_admission"]) spec.gpu_admission = read_gpu_admission(node, context);
    const auto& node = root["auto_device"];
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "auto_device", "must be {cpu_if: \"n < 1000\"}");
    context.check_keys(node, "auto_device", job_field_names("auto_device"));
    const auto& rule = node["cpu_if"];
    if (!rule) context.fail(node, "auto_device.cpu_if", "missing; write e.g. cpu_if: \"n < 1000\"");
    if (!rule.IsScalar()) context.fail(rule, "auto_device.cpu_if", "must be a text such as \"n < 1000 and m < 1000\"");
    // Checked against device, exec.mode and the parameters across sections (job_checks.hpp).
    spec.auto_device_cpu_if = rule.Scalar();
    job.marks.values["auto_device"] = node.Mark();
    job.marks.values["auto_device.cpu_if"] = rule.Mark();
}

void read_gpu_sharing(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    auto& sharing = job.spec.gpu_sharing;
    for (const char* key : gpu_sharing_keys) {
        if (!root[key]) continue;
        sharing.given = true;
        job.marks.values[key] = root[key].Mark();  // the conflicts across sections are reported at the first (job_checks.hpp)
    }
    if (!sharing.given) return;
    if (root["tasks_per_gpu"]) sharing.tasks_per_gpu = read_int(root["tasks_per_gpu"], context, "tasks_per_gpu");
    if (root["gpu_sharing"]) sharing.mode = GpuSharingSpec::mode_named(read_choice(root["gpu_sharing"], context, "gpu_sharing"));
    sharing.thread_percent = std::max(1, 100 / sharing.tasks_per_gpu);
    if (root["gpu_threads"]) {
        if (!sharing.mps()) {
            context.fail(root["gpu_threads"], "gpu_threads", "applies only with gpu_sharing: mps (time slicing has no "
                                                             "thread share)");
        }
        sharing.thread_percent = read_int(root["gpu_threads"], context, "gpu_threads");
        if (sharing.thread_percent > 100) {
            context.fail(root["gpu_threads"], "gpu_threads",
                         fmt::format("{} is above 100; it is a percentage of the GPU's SMs, 1..100", sharing.thread_percent));
        }
    }
    if (root["gpu_memory"]) {
        const auto node = root["gpu_memory"];
        if (!sharing.mps()) {
            // Nothing enforces a limit under time slicing, and NVML cannot tell the tasks of one
            // rank (or, in a container, of one device) apart to check it: refused, not ignored.
            context.fail(node, "gpu_memory", "applies only with gpu_sharing: mps (time slicing cannot limit a task's "
                                             "memory; /tasks/gpu_mem_peak shows what tasks used)");
        }
        const auto bytes = node.IsScalar() ? parse_byte_size(node.Scalar()) : std::nullopt;
        if (!bytes) {
            context.fail(node, "gpu_memory", fmt::format("'{}' is not a size; give bytes per task with a K, M, G or T "
                                                         "suffix, e.g. 10G",
                                                         node.IsScalar() ? node.Scalar() : "a list or mapping"));
        }
        sharing.memory_bytes = *bytes;
    }
}

}  // namespace shardrun::job
