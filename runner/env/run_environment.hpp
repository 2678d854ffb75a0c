#pragma once

#include "runner/env/build_features.hpp"
#include "runner/env/cpu_share.hpp"
#include "runner/env/device_binding.hpp"
#include "runner/env/scheduler.hpp"
#include "runner/env/topology.hpp"

namespace shardrun::env {

/** Everything a rank knows about where it runs: MPI, scheduler, array element, device, build. */
struct RunEnvironment {
    Topology topology;
    SchedulerInfo scheduler;
    ArrayPosition array;
    DeviceBinding device;
    CpuShare cpus;  ///< this rank's CPUs and the threads of its tasks
    BuildFeatures build;
};

/**
 * Detects the whole environment of this rank. Collective over `world`.
 * @param node  the members of world that share memory with this rank
 * @param cuda  whether the CUDA backend may be loaded to find this rank's GPU (detect_build_features)
 * @param gpus_per_rank  GPUs this process gets, packed by node (pack_devices)
 * @throws UsageError on contradictory array variables or overrides, or more GPUs asked than the node has
 */
RunEnvironment detect_run_environment(const ArrayOverrides& overrides, collectives::Communicator& world,
                                      collectives::Communicator& node,
                                      kernels::CudaProbe cuda = kernels::CudaProbe::load, int gpus_per_rank = 1);

}  // namespace shardrun::env
