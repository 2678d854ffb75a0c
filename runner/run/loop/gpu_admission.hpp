#pragma once

// The admission check (issue 38, point 1): before its first claim each GPU rank measures its
// GPUs (kernels/device_check: a GEMM in the job's precision and a device-to-device copy; NVML's
// clocks, throttling and error counters; the sampler's Xid events), every rank sees every GPU's
// figures, and a GPU that is slow against its peers (or its spec, alone) or reports errors takes
// no task: its rank is refused like a quarantined one (DeviceHealth::refuse).
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "io/gpu_check_row.hpp"
#include "runner/env/run_environment.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/run/loop/device_health.hpp"

namespace shardrun::run {

/** The GEMM's element type for `spec`: gpu_admission.precision, else the task's dtype param, else bf16. */
std::string admission_precision(const job::JobSpec& spec);

/** What the check decided, on every rank. */
struct Admission {
    std::vector<io::GpuCheckRow> rows;  ///< this rank's /gpus rows, one per GPU of its binding
    bool every_rank_refused = false;    ///< no rank of the job may take a task
};

/**
 * Collective over `world` (every rank calls it; a rank without a GPU measures nothing). Skipped
 * (no collective, empty result) when gpu_admission is off.
 * @param health  this rank's quarantine watch; nullptr where it has none (the CPU, gpus_per_task > 1,
 *                where a group's members must run each task together): the check is recorded, not enforced
 */
Admission admit_rank_gpus(collectives::Communicator& world, const job::JobSpec& spec,
                                             const env::RunEnvironment& machine, DeviceHealth* health);

}  // namespace shardrun::run
