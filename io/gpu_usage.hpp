#pragma once

#include <cstdint>
#include <limits>

namespace shardrun::io {

/** Where /tasks/gpu_mem_peak of one task was measured. */
enum class GpuMemScope : std::int8_t {
    none = 0,     ///< no telemetry for this task (no NVML, the CPU, a task that never ran)
    process = 1,  ///< the task's own processes, as NVML lists them
    device = 2,   ///< the whole device: NVML listed none of them (a container's PID namespace)
};

/**
 * What one task did on its GPU(s), from NVML samples taken while it ran: the /tasks/gpu_*
 * columns. Utilisation, energy and temperature are the device's (another task sharing it
 * counts too); memory is per process where NVML lists processes. With several GPUs per rank:
 * memory and energy summed, utilisation averaged, temperature the hottest. Trivially copyable:
 * ranks exchange it as bytes.
 */
struct TaskGpuUsage {
    std::int64_t mem_peak = -1;                                        ///< bytes; -1 when not measured
    double util_mean = std::numeric_limits<double>::quiet_NaN();       ///< % of time a kernel ran (NVML "gpu" rate)
    double util_peak = std::numeric_limits<double>::quiet_NaN();       ///< %
    double energy_j = std::numeric_limits<double>::quiet_NaN();        ///< joules during the task
    double temp_max = std::numeric_limits<double>::quiet_NaN();        ///< degrees Celsius
    std::int32_t xid_events = -1;                                      ///< NVML Xid critical-error events; -1: not watched
    GpuMemScope mem_scope = GpuMemScope::none;
    // GPM (Hopper and later): means over the task, in %; NaN where GPM is not read.
    double sm_active = std::numeric_limits<double>::quiet_NaN();      ///< share of SMs busy
    double sm_occupancy = std::numeric_limits<double>::quiet_NaN();   ///< resident warps over the SMs' maximum
    double tensor_active = std::numeric_limits<double>::quiet_NaN();  ///< tensor cores busy
    double dram_bw = std::numeric_limits<double>::quiet_NaN();        ///< DRAM bandwidth over its peak
    // Energy and money (measured or not, with or without a GPU): NaN where unknown.
    double cpu_energy_j = std::numeric_limits<double>::quiet_NaN();   ///< the task's share of RAPL's CPU energy
    double total_energy_j = std::numeric_limits<double>::quiet_NaN(); ///< energy_j + cpu_energy_j, what is known of them
    double cost_usd = std::numeric_limits<double>::quiet_NaN();       ///< from the job's price:

    bool measured() const noexcept { return mem_scope != GpuMemScope::none; }
    bool has_gpm() const noexcept { return sm_active == sm_active; }
    bool has_energy_or_cost() const noexcept { return total_energy_j == total_energy_j || cost_usd == cost_usd; }
};

}  // namespace shardrun::io
