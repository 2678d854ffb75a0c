#pragma once

// One rank's GPU under quarantine watch (issue 26, point 3): reads the fault source around each
// task attempt on the GPU, asks gpu::judge_task, and counts faults in a gpu::FaultLedger.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runner/core/task_kind.hpp"
#include "runner/env/device_binding.hpp"
#include "runner/gpu/device_fault_source.hpp"
#include "runner/gpu/quarantine.hpp"

namespace shardrun::run {

/** Thread-safe: the slots of a rank share it. */
class DeviceHealth {
public:
    /**
     * @param rank_device  the rank's GPU binding (quarantine watches GPUs only)
     * @param host  the node's name, for the summary
     * @param limit  gpu_fault_limit
     * @param source  the GPU's own reports; nullptr: none (only trusted CUDA errors count)
     * @param trusted_messages  the kind is shardrun's own CUDA code (a built-in kernel kind)
     */
    DeviceHealth(const env::DeviceBinding& rank_device, const std::string& host, int limit,
                 std::shared_ptr<gpu::DeviceFaultSource> source, bool trusted_messages);

    /** The fault totals of `device` before an attempt (empty on the CPU or without a source). */
    gpu::DeviceFaultEvents before(const env::DeviceBinding& device) const;
    /**
     * Judges an attempt that ran on `device` and counts a fault against the GPU.
     * @return the evidence when the attempt counts against the device, else ""
     */
    std::string after(const env::DeviceBinding& device, const gpu::DeviceFaultEvents& before,
                      const tasks::TaskOutcome& outcome);

    /**
     * Takes the GPU out of the job before its first task (issue 38: it failed the admission check);
     * quarantine_line() is then `line`. Called before the loop starts.
     */
    void refuse(std::string line);

    bool quarantined() const noexcept { return quarantined_.load(); }
    /** "GPU cuda:0 (UUID GPU-..., CUDA_VISIBLE_DEVICES 0) on node1". */
    const std::string& device() const noexcept { return name_; }
    /** The summary's line once quarantined or refused, else "": the device, the count and the evidence. */
    std::string quarantine_line() const;

private:
    gpu::DeviceFaultEvents totals(const env::DeviceBinding& device) const;

    std::shared_ptr<gpu::DeviceFaultSource> source_;
    bool trusted_messages_;
    std::string name_;
    mutable std::mutex mutex_;
    gpu::FaultLedger ledger_;
    std::string refused_;  ///< the admission check's line; "" when admitted
    std::atomic<bool> quarantined_{false};
};

}  // namespace shardrun::run
