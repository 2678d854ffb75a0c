#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/gpu_usage.hpp"
#include "runner/gpu/device_fault_events.hpp"

namespace shardrun::gpu {

/** What NVML said about one device at one instant. */
struct DeviceReading {
    std::uint64_t mem_used = 0;                    ///< device-wide bytes in use
    std::optional<std::uint64_t> mem_processes;    ///< bytes of this rank's processes, when NVML lists one of them
    double util = 0;                               ///< %
    std::optional<std::uint64_t> energy_mj;        ///< total energy counter, where the device has one
    double temp_c = 0;
};

/** GPM's rates over one interval between two samples, in %, averaged over the rank's devices. */
struct GpmRates {
    double sm_active = 0;      ///< NVML_GPM_METRIC_SM_UTIL
    double sm_occupancy = 0;   ///< NVML_GPM_METRIC_SM_OCCUPANCY
    double tensor_active = 0;  ///< NVML_GPM_METRIC_ANY_TENSOR_UTIL
    double dram_bw = 0;        ///< NVML_GPM_METRIC_DRAM_BW_UTIL
    double seconds = 0;        ///< the interval's length: each rate weighs by it
};

/** The rank's devices at one instant, combined: memory and energy summed, utilisation averaged, temperature the hottest. */
struct Sample {
    std::uint64_t mem_device = 0;
    std::optional<std::uint64_t> mem_processes;  ///< set when some device listed one of this rank's processes
    double util = 0;
    std::optional<std::uint64_t> energy_mj;      ///< set only when every device has the counter
    double temp_c = 0;
    std::optional<GpmRates> gpm;  ///< GPM over the interval that ended with this sample, where GPM is read
};

/** Combines one reading per device of the rank; `readings` must not be empty. */
Sample combine(const std::vector<DeviceReading>& readings);

/** Error counters that only grow; -1 where the device cannot tell (no ECC, no page retirement). */
struct FaultCounters {
    long long ecc_uncorrected = -1;
    long long retired_pages = -1;
};

/** "Xid 79 (GPU has fallen off the bus)": the meaning of the Xids a failing GPU typically reports. */
std::string describe_xid(unsigned long long xid);

/**
 * One running task's view of the samples: every sample taken from its start to its end.
 * Pure: the sampler feeds it, the tests feed it by hand.
 */
class TelemetryWindow {
public:
    /** Opens with the sample taken at the task's start and the fault counters then. */
    TelemetryWindow(const Sample& first, const FaultCounters& counters, bool xids_watched);

    void add(const Sample& sample);
    void add_xid(unsigned long long xid);

    /** The /tasks/gpu_* values of the samples so far. */
    io::TaskGpuUsage usage() const;
    /** What the GPU reported about itself since the start: Xids seen, counters' growth to `now`. */
    DeviceFaultEvents faults(const FaultCounters& now) const;

private:
    FaultCounters start_counters_;
    bool xids_watched_;
    std::vector<unsigned long long> xids_;
    std::uint64_t mem_peak_device_ = 0;
    std::uint64_t mem_peak_processes_ = 0;
    bool processes_listed_ = false;  ///< some sample listed one of the rank's processes
    double util_sum_ = 0;
    double util_peak_ = 0;
    std::size_t samples_ = 0;
    std::optional<std::uint64_t> energy_first_, energy_last_;
    bool energy_known_ = true;
    double temp_max_ = 0;
    GpmRates gpm_sum_;  ///< each rate times its interval's seconds
    bool gpm_seen_ = false, gpm_gap_ = false;  ///< some interval had GPM; some had none
};

}  // namespace shardrun::gpu
