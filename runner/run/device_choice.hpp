#pragma once

#include "runner/env/device_binding.hpp"
#include "runner/job/job_spec.hpp"

namespace shardrun::run {

/**
 * Applies the job's `device:` to the rank's detected binding: cpu forces the CPU, cuda
 * requires a device (JobFileError with the reason otherwise), auto keeps what was found.
 */
env::DeviceBinding choose_device(const job::JobSpec& spec, const env::DeviceBinding& detected);

}  // namespace shardrun::run
