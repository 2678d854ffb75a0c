#pragma once

// Quarantine of a failing GPU (issue 26, point 3), as pure decisions: what counts as a device
// fault, and when a device has had enough of them. The runner (runner/run/loop/device_health.hpp)
// feeds them what a task did and what its GPU reported (DeviceFaultEvents).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runner/gpu/device_fault_events.hpp"

namespace shardrun::gpu {

/**
 * The CUDA error in `message` that only a faulty device raises, or "" when there is none:
 * cudaErrorECCUncorrectable, cudaErrorNvlinkUncorrectable, cudaErrorHardwareStackError,
 * cudaErrorLaunchFailure ("unspecified launch failure", the CUDA face of most Xids),
 * cudaErrorExternalDevice, and NVML's "GPU is lost" / the driver's "fallen off the bus".
 * Errors a program's own bug raises (cudaErrorIllegalAddress, cudaErrorMisalignedAddress,
 * cudaErrorAssert, out of memory, invalid arguments) are not device faults: they would
 * quarantine a good GPU.
 */
std::string device_error_in(std::string_view message);

/** What one task on a GPU says about that GPU. */
struct TaskOnDevice {
    bool failed = false;
    /** The failure message comes from shardrun's own CUDA code (a built-in kernel kind), not a user's program. */
    bool trusted_message = false;
    std::string message;
    DeviceFaultEvents events;  ///< what the GPU reported during the task (empty without NVML)
};

/** Why a task counts against its device; `fault` false when it does not. */
struct FaultVerdict {
    bool fault = false;
    std::string evidence;  ///< for people: "Xid 79 (GPU has fallen off the bus)", "cudaErrorECCUncorrectable"
};

/**
 * A task counts against its GPU when the GPU reported Xid, uncorrected ECC or retired-page
 * events during it (whether or not the task failed: its results may be wrong too, but they
 * are kept and only counted), or when a built-in kernel failed with a device error. A user's
 * program that fails is never a device fault by its message alone: its errors are its own.
 */
FaultVerdict judge_task(const TaskOnDevice& task);

/** "2 Xid events, 1 uncorrected ECC error" when `events.detail` is empty; otherwise the detail. */
std::string events_text(const DeviceFaultEvents& events);

/** A quarantined device and why. */
struct QuarantinedDevice {
    std::string device;                  ///< the ledger's key: "host cuda:0 (GPU-uuid)"
    std::vector<std::string> evidence;   ///< one line per fault, oldest first
};

/**
 * Counts device faults per device and quarantines a device at its `limit`-th fault, for the
 * rest of the job. Not thread-safe (DeviceHealth guards it).
 */
class FaultLedger {
public:
    explicit FaultLedger(int limit) : limit_(limit < 1 ? 1 : limit) {}

    /** Records one fault of `device`; true when it quarantines the device now (at the limit). */
    bool record(const std::string& device, std::string evidence);
    bool quarantined(const std::string& device) const;
    int faults(const std::string& device) const;
    int limit() const noexcept { return limit_; }
    std::vector<QuarantinedDevice> quarantined_devices() const;

private:
    int limit_;
    std::map<std::string, std::vector<std::string>> faults_;
};

/**
 * Whether a job can go on once some of its devices are quarantined: true while some rank's
 * device is healthy (or on the CPU). `rank_quarantined` has one entry per rank.
 */
bool some_rank_healthy(const std::vector<bool>& rank_quarantined);

}  // namespace shardrun::gpu
