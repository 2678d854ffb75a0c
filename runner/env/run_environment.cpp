#include "runner/env/run_environment.hpp"

namespace shardrun::env {

RunEnvironment detect_run_environment(const ArrayOverrides& overrides, collectives::Communicator& world,
                                      collectives::Communicator& node, kernels::CudaProbe cuda)
{
    RunEnvironment result;
    const auto env = process_env();
    result.topology = detect_topology(world, node);
    result.scheduler = detect_scheduler(env);
    result.array = resolve_array(result.scheduler, overrides);
    result.build = detect_build_features(cuda);
    result.device = bind_device(result.build.cuda_devices, env("CUDA_VISIBLE_DEVICES"),
                                result.topology.local_rank, result.build.no_device_reason);
    return result;
}

}  // namespace shardrun::env
