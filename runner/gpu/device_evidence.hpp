#pragma once

// What NVML says about one GPU at its admission check (issue 38, point 1): its name and UUID,
// clocks, the reasons its clocks are held back, and the errors that bar it from work (uncorrected
// ECC, pages or rows waiting for a reset). Xid events come from the telemetry sampler instead,
// which watches them (runner/gpu/device_fault_source.hpp).
#include <string>
#include <vector>

#include "runner/gpu/nvml_library.hpp"

namespace shardrun::gpu {

struct DeviceEvidence {
    std::string name;  ///< NVML's ("NVIDIA H100 80GB HBM3")
    std::string uuid;
    int sm_clock_mhz = -1;  ///< -1: not read
    int sm_clock_max_mhz = -1;
    int mem_clock_mhz = -1;
    std::string throttle;             ///< clocks_event_names() of the reasons now; "" for none or not read
    std::vector<std::string> errors;  ///< "3 uncorrected ECC errors", "pages pending retirement", ...
};

/** Reads what `fn` offers for `device`; calls a driver lacks are left at their defaults. */
DeviceEvidence read_device_evidence(const NvmlLibrary& nvml, nvml::Device device);

/**
 * The names of the reasons in `mask` that hold clocks back, comma-separated: sw_power_cap,
 * hw_slowdown, sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake, applications_clocks,
 * sync_boost, display_clocks. gpu_idle is left out: the check reads the reasons right after its
 * GEMM, when an idle GPU is no evidence.
 */
std::string clocks_event_names(unsigned long long mask);

}  // namespace shardrun::gpu
