// The GPU keys against the rest of the job: auto_device's rule, and GPU sharing.
#include <fmt/format.h>

#include <algorithm>

#include "runner/errors.hpp"
#include "runner/job/auto_device_rule.hpp"
#include "runner/job/job_checks.hpp"
#include "runner/job/unset_rule_param_error.hpp"

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

// The key a sharing conflict is reported at: the first that asks for sharing.
YAML::Mark sharing_key(const FieldMarks& marks)
{
    for (const char* key : gpu_sharing_keys) {
        if (marks.values.count(key) != 0) return marks.value(key);
    }
    return YAML::Mark::null_mark();
}

}  // namespace

void check_auto_device(const JobRead& job, const YamlContext& context)
{
    const auto& spec = job.spec;
    if (job.marks.values.count("auto_device") == 0) return;
    const auto node = job.marks.value("auto_device");
    if (spec.device != DevicePreference::automatic) {
        context.fail(node, "auto_device", fmt::format("routes tasks under device: auto, but this job says device: {}; "
                                                      "use device: auto, or leave auto_device out",
                                                      spec.device == DevicePreference::cpu ? "cpu" : "cuda"));
    }
    if (spec.task == "exec" && spec.exec.mode == ExecSpec::Mode::worker) {
        context.fail(node, "auto_device", "cannot route single tasks with exec.mode: worker (one process per rank sees "
                                          "one set of GPUs); use exec.mode: task, or leave auto_device out");
    }
    const auto names = rule_names(spec);
    try {
        parse_cpu_rule(spec.auto_device_cpu_if, names);
    } catch (const CpuRuleError& error) {
        // The column of the rule's text: past its opening quote when it has one.
        const auto mark = job.marks.value("auto_device.cpu_if");
        const bool quoted = mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < spec.text.size() &&
                            (spec.text[mark.pos] == '"' || spec.text[mark.pos] == '\'');
        const auto where = context.where(mark, "auto_device.cpu_if");
        const auto at = where.rfind(':');
        const bool in_file = at != std::string::npos && where.rfind("--set", 0) != 0 && mark.column >= 0;
        const auto place = in_file ? fmt::format("{}:{}", where.substr(0, at),
                                                 mark.column + 1 + (quoted ? 1 : 0) + static_cast<int>(error.column()))
                                   : where;
        const auto line = located(place, "auto_device.cpu_if", one_line(error.what()));
        if (const auto* unknown = dynamic_cast<const UnknownRuleParamError*>(&error)) {
            throw UnsetRuleParamError(__FILE__, __LINE__, line, place, spec.task, unknown->name(), names);
        }
        SHARDRUN_THROW(JobFileError, line);
    }
}

void check_gpu_sharing(const JobRead& job, const YamlContext& context)
{
    const auto& spec = job.spec;
    const auto& sharing = spec.gpu_sharing;
    if (!sharing.given) return;
    const auto at = sharing_key(job.marks);
    if (spec.device == DevicePreference::cpu) {
        context.fail(at, "tasks_per_gpu", "shares a GPU, but device: cpu keeps every rank on the CPU; use device: auto "
                                          "or cuda, or leave the gpu sharing keys out");
    }
    if (spec.gpus_per_task > 1) {
        // A group runs one task at a time over all its members: there is nothing to pack.
        context.fail(at, "tasks_per_gpu", "cannot be combined with gpus_per_task above 1 (a rank group runs one task "
                                          "at a time); use one or the other");
    }
    if (spec.gpus_per_rank > 1) {
        context.fail(at, "tasks_per_gpu", "cannot be combined with gpus_per_rank above 1 (packing shares one GPU); "
                                          "use one or the other");
    }
    if (job.marks.values.count("slots_per_rank") != 0 && spec.slots_per_rank != sharing.tasks_per_gpu) {
        context.fail(job.marks.value("slots_per_rank"), "slots_per_rank",
                     fmt::format("is {} but tasks_per_gpu is {} (tasks_per_gpu sets the slots); leave slots_per_rank out",
                                 spec.slots_per_rank, sharing.tasks_per_gpu));
    }
    if (sharing.mps() && sharing.tasks_per_gpu > 1 && spec.exec.mode == ExecSpec::Mode::worker) {
        // One worker process per rank is one MPS client: its K tasks would share one limit, not get one each.
        context.fail(job.marks.value("exec.mode"), "exec.mode",
                     "worker runs one process per rank, so MPS would limit the worker, not each of its tasks_per_gpu "
                     "tasks; use exec.mode: task, gpu_sharing: time, or tasks_per_gpu: 1");
    }
}

void derive_settings(JobSpec& spec)
{
    // tasks_per_gpu K runs K tasks at once on the rank's GPU: K slots (checked above not to contradict slots_per_rank).
    if (spec.gpu_sharing.given) spec.slots_per_rank = spec.gpu_sharing.tasks_per_gpu;
}

}  // namespace shardrun::job
