#include "runner/gpu/mps_env.hpp"

#include <algorithm>

#include "runner/job/byte_size.hpp"

namespace shardrun::gpu {

std::vector<std::string> mps_client_env(const MpsClientSettings& settings, int visible_ordinal)
{
    std::vector<std::string> env{"CUDA_MPS_PIPE_DIRECTORY=" + settings.pipe_dir,
                                 "CUDA_MPS_LOG_DIRECTORY=" + settings.log_dir,
                                 "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + std::to_string(settings.thread_percent)};
    if (settings.memory_bytes > 0) {
        env.push_back("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=" + std::to_string(visible_ordinal) + "=" +
                      job::byte_size_text(settings.memory_bytes));
    }
    return env;
}

MpsClientSettings rank_process_settings(MpsClientSettings task, int tasks_per_gpu)
{
    const int k = std::max(1, tasks_per_gpu);
    task.thread_percent = std::min(100, task.thread_percent * k);
    task.memory_bytes *= static_cast<std::uint64_t>(k);
    return task;
}

}  // namespace shardrun::gpu
