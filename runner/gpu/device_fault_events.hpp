#pragma once

// What a GPU reported about itself while one task ran on it: the evidence quarantine counts
// (issue 26, point 3). Filled by the NVML telemetry sampler; empty where there is no NVML.
#include <string>

namespace shardrun::gpu {

struct DeviceFaultEvents {
    int xid_events = 0;                  ///< NVML Xid critical-error events during the task
    long long ecc_uncorrected = 0;       ///< new volatile uncorrected ECC errors during the task
    long long retired_pages = 0;         ///< pages newly retired or pending retirement
    std::string detail;                  ///< for people: "Xid 79 (GPU has fallen off the bus)", ...

    bool any() const { return xid_events > 0 || ecc_uncorrected > 0 || retired_pages > 0; }
};

}  // namespace shardrun::gpu
