#pragma once

// Where quarantine gets a GPU's own reports (Xid, ECC, retired pages): the seam the NVML
// telemetry sampler fills (issue 26, points 2 and 3). Quarantine reads cumulative totals before
// and after each attempt of a task on a GPU and counts the difference (DeviceHealth).
#include <memory>
#include <string>

#include "runner/gpu/device_fault_events.hpp"

namespace shardrun::gpu {

/**
 * Fault events of this process's GPUs since the source started. Implementations must be
 * thread-safe (every slot of a rank asks) and cheap (asked twice per task attempt on a GPU):
 * return counters the sampler thread keeps, never call NVML here.
 */
class DeviceFaultSource {
public:
    virtual ~DeviceFaultSource() = default;
    /**
     * Running totals for the CUDA device of `ordinal` (as this process numbers its visible
     * devices, env::DeviceBinding::ordinal): xid_events, ecc_uncorrected and retired_pages only
     * grow; `detail` names the latest event ("Xid 79 (GPU has fallen off the bus)"), or "".
     */
    virtual DeviceFaultEvents totals(int ordinal) const = 0;
    /** The device's UUID ("GPU-8f2c..."), "" when unknown: quarantine names it in the summary. */
    virtual std::string uuid(int ordinal) const { (void)ordinal; return ""; }
};

/**
 * Makes this process's source the one quarantine reads (the NVML sampler calls it once it
 * runs, before the rank's tasks start; nullptr removes it). Not thread-safe against readers.
 */
void set_device_fault_source(std::shared_ptr<DeviceFaultSource> source);

/**
 * The source set above; else, when SHARDRUN_TEST_GPU_FAULTS names devices, the test source
 * (below); else nullptr (no evidence but built-in kernels' CUDA errors).
 */
std::shared_ptr<DeviceFaultSource> device_fault_source();

/**
 * FOR TESTS ONLY, standing in for NVML on machines without a GPU: SHARDRUN_TEST_GPU_FAULTS="0,2"
 * makes the CUDA devices of ordinal 0 and 2 (as this process numbers them) report one more
 * Xid 79 each time their totals are read, so every task attempt on them sees one. nullptr when
 * the variable is unset or empty. device_fault_source() uses it only when no real source is set.
 */
std::shared_ptr<DeviceFaultSource> test_fault_source_from_env();

}  // namespace shardrun::gpu
