#include "runner/env/run_environment.hpp"

#include "runner/errors.hpp"

namespace shardrun::env {

RunEnvironment detect_run_environment(const ArrayOverrides& overrides, collectives::Communicator& world,
                                      collectives::Communicator& node, kernels::CudaProbe cuda, int gpus_per_rank)
{
    RunEnvironment result;
    const auto env = process_env();
    result.topology = detect_topology(world, node);
    result.cpus = detect_cpu_share(node);
    result.scheduler = detect_scheduler(env);
    result.array = resolve_array(result.scheduler, overrides);
    result.build = detect_build_features(cuda);
    result.device = bind_device(result.build.cuda_devices, env("CUDA_VISIBLE_DEVICES"),
                                result.topology.local_rank, result.build.no_device_reason);
    if (gpus_per_rank > 1 && result.build.cuda_devices > 0) {
        // Without a GPU, device: auto stays on the CPU (and device: cuda fails later, saying why).
        auto packed = pack_devices(result.build.cuda_devices, env("CUDA_VISIBLE_DEVICES"), result.topology.local_rank,
                                   gpus_per_rank);
        if (!packed.problem.empty()) SHARDRUN_THROW(UsageError, packed.problem);
        result.device = std::move(packed.binding);
    }
    return result;
}

}  // namespace shardrun::env
