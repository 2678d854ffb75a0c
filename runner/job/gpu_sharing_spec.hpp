#pragma once

#include <cstdint>
#include <string_view>

#include "runner/job/job_fields.hpp"

namespace shardrun::job {

/** How the tasks that share one GPU are fenced from each other (`gpu_sharing:`). */
enum class GpuSharingMode {
    time,  ///< the driver's time slicing; gpu_memory is checked through telemetry
    mps,   ///< an MPS control daemon per node; thread share and memory limit enforced by the driver
};

/**
 * `tasks_per_gpu`, `gpu_sharing`, `gpu_threads` and `gpu_memory` (issue 26, point 1). K tasks at
 * once on each rank's GPU: the rank's slots are K (JobSpec::slots_per_rank is set to K).
 */
struct GpuSharingSpec {
    bool given = false;       ///< any of the four keys was in the job file
    int tasks_per_gpu = field_default<int>("tasks_per_gpu");  ///< K >= 1
    GpuSharingMode mode = mode_named(field_default<std::string_view>("gpu_sharing"));
    int thread_percent = 100; ///< CUDA_MPS_ACTIVE_THREAD_PERCENTAGE; default 100 / K rounded down
    std::uint64_t memory_bytes = field_default<std::uint64_t>("gpu_memory");  ///< gpu_memory per task, in bytes; 0: no limit

    /** gpu_sharing's word as the enum. */
    static constexpr GpuSharingMode mode_named(std::string_view word)
    {
        return word == "mps" ? GpuSharingMode::mps : GpuSharingMode::time;
    }

    bool mps() const noexcept { return mode == GpuSharingMode::mps; }
};

}  // namespace shardrun::job
