#pragma once

#include <string>

#include "runner/env/device_binding.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/job/param_map.hpp"

namespace shardrun::run {

/**
 * Applies the job's `device:` to the rank's detected binding: cpu forces the CPU, cuda
 * requires a device (JobFileError with the reason otherwise), auto keeps what was found.
 */
env::DeviceBinding choose_device(const job::JobSpec& spec, const env::DeviceBinding& detected);

/**
 * Checks every `device` parameter value of the job (params.device, a sweep axis or points)
 * before anything runs: auto, cpu or cuda, and no cuda when the job's `device:` is cpu
 * (that task could run nowhere). Kinds with a closed parameter table check the choice too;
 * this covers exec and noop, whose tables are open.
 * @throws JobFileError  "<file>:<line>:<col>: params.device: ..."
 */
void check_task_devices(const job::JobSpec& spec);

/** The device one task runs on and, when this rank cannot give it, why. */
struct TaskDevice {
    const env::DeviceBinding* binding = nullptr;  ///< the rank's binding or a static CPU one; never null
    std::string problem;                          ///< empty when the task may run
};

/**
 * Narrows the rank's binding by the task's `device` parameter: cpu runs it on the CPU, cuda
 * needs the rank's GPU, auto (or no parameter) keeps the rank's binding. A cuda task on a
 * rank without a GPU is never moved to the CPU: `problem` says why it cannot run.
 * @param rank  the rank's binding (after choose_device)
 * @param requested  the task's `device` value, nullptr when it has none
 */
TaskDevice task_device(const env::DeviceBinding& rank, const job::ParamValue* requested);

}  // namespace shardrun::run
