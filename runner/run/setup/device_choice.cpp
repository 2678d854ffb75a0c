#include "runner/run/setup/device_choice.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "base/documented_error.hpp"
#include "runner/errors.hpp"
#include "runner/job/yaml_context.hpp"
#include "runner/tasks/device_param.hpp"

namespace shardrun::run {
namespace {

void check_device_value(const job::JobSpec& spec, const job::ParamValue& value, const std::string& where)
{
    auto problem = tasks::param_problem(tasks::device_param(), value);
    if (problem.empty() && spec.device == job::DevicePreference::cpu && job::param_text(value) == "cuda") {
        problem = "cuda, but the job's device: cpu keeps every rank off the GPU; use device: auto, or leave cuda out";
    }
    if (!problem.empty()) SHARDRUN_THROW(JobFileError, job::located(where, "params.device", problem));
}

}  // namespace

env::DeviceBinding choose_device(const job::JobSpec& spec, const env::DeviceBinding& detected)
{
    switch (spec.device) {
    case job::DevicePreference::cpu: {
        env::DeviceBinding cpu;
        cpu.reason = "device: cpu in the job";
        return cpu;
    }
    case job::DevicePreference::cuda:
        if (!detected.cuda) {
            SHARDRUN_THROW_DOCUMENTED(JobFileError, "docs/troubleshooting.md#cuda-unavailable",
                                      spec.file + ": device: cuda, but this rank has no CUDA device (" + detected.reason +
                                      "); use device: auto or cpu");
        }
        return detected;
    case job::DevicePreference::automatic: break;
    }
    return detected;
}

void check_task_devices(const job::JobSpec& spec)
{
    if (const auto* value = spec.params.find("device")) {
        check_device_value(spec, *value, spec.sites.value("params.device", spec.sites.value("params", spec.file)));
    }
    for (const auto& axis : spec.sweep.dimensions()) {
        const auto names = axis->names();
        if (std::find(names.begin(), names.end(), "device") == names.end()) continue;
        job::ParamMap values;
        for (std::uint64_t i = 0; i < axis->size(); ++i) {
            axis->apply(i, values);
            check_device_value(spec, *values.find("device"), axis->where(i, "device"));
        }
    }
}

TaskDevice task_device(const env::DeviceBinding& rank, const job::ParamValue* requested)
{
    static const env::DeviceBinding cpu = [] {
        env::DeviceBinding binding;
        binding.reason = "device: cpu in the task's params";
        binding.hide_gpus = true;
        return binding;
    }();
    const auto* text = requested == nullptr ? nullptr : std::get_if<std::string>(requested);
    if (text == nullptr || *text == "auto") return {&rank, {}};
    if (*text == "cpu") return {&cpu, {}};
    if (*text != "cuda") return {&rank, "params.device: " + tasks::param_problem(tasks::device_param(), *requested)};
    if (rank.cuda) return {&rank, {}};
    // Running it on the CPU would record a CPU time as the GPU's: the task fails instead.
    return {&rank, fmt::format("params.device: cuda, but this rank has no CUDA device ({}); it is not run on the CPU "
                               "instead: run it where a GPU is, or leave cuda out (e.g. --set 'sweep.device=[cpu]')",
                               rank.reason)};
}

}  // namespace shardrun::run
