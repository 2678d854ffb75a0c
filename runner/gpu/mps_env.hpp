#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardrun::gpu {

/** What one MPS client (a task, a worker, a rank running built-in kernels) is told. */
struct MpsClientSettings {
    std::string pipe_dir;        ///< CUDA_MPS_PIPE_DIRECTORY: the node's daemon for this job
    std::string log_dir;         ///< CUDA_MPS_LOG_DIRECTORY
    int thread_percent = 100;    ///< CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, 1..100
    std::uint64_t memory_bytes = 0;  ///< CUDA_MPS_PINNED_DEVICE_MEM_LIMIT for the client's GPU; 0: none
};

/**
 * The "NAME=value" variables an MPS client gets. The memory limit names the GPU by its ordinal
 * among the client's visible devices: "0=10G" for a task whose CUDA_VISIBLE_DEVICES names one
 * GPU (the form verified on an H100).
 * @param visible_ordinal  the client's GPU among the devices it sees
 */
std::vector<std::string> mps_client_env(const MpsClientSettings& settings, int visible_ordinal);

/**
 * The settings of a rank process whose K slots run built-in kernels in one process: one MPS
 * client holding K tasks, so K times a task's share (at most 100 %) and K times its memory.
 */
MpsClientSettings rank_process_settings(MpsClientSettings task, int tasks_per_gpu);

}  // namespace shardrun::gpu
