#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/gpu_usage.hpp"
#include "runner/env/device_binding.hpp"
#include "runner/gpu/device_fault_events.hpp"
#include "runner/gpu/gpm_reader.hpp"
#include "runner/gpu/nvml_library.hpp"
#include "runner/gpu/telemetry_window.hpp"

namespace shardrun::gpu {

/** What a task's window gave when it closed. */
struct TaskTelemetry {
    io::TaskGpuUsage usage;
    DeviceFaultEvents faults;
};

/**
 * One thread per rank that samples the rank's GPUs through NVML every `interval` and feeds
 * every open task window. open() and close() take a sample of their own, so a task shorter
 * than the interval still gets values. Thread-safe: a rank's slots open and close windows
 * concurrently (their windows overlap and see the same device-wide samples).
 */
class TelemetrySampler {
public:
    using WindowId = std::uint64_t;

    TelemetrySampler(std::shared_ptr<NvmlLibrary> nvml, std::vector<nvml::Device> devices, double interval_seconds);
    ~TelemetrySampler();
    TelemetrySampler(const TelemetrySampler&) = delete;
    TelemetrySampler& operator=(const TelemetrySampler&) = delete;

    /** Starts a task's window with a sample taken now. */
    WindowId open();
    /** Ends the window with a sample taken now and returns what it saw. */
    TaskTelemetry close(WindowId window);
    /**
     * The fault evidence of the rank's GPUs since the sampler started, for quarantine (which
     * counts the growth over each attempt): Xid events drained now (they also reach the open
     * windows), the volatile uncorrected ECC and retired-page counters read now. -1 counters
     * (unsupported) read as 0. A few microseconds: no memory, utilisation or process query.
     */
    DeviceFaultEvents fault_totals();
    /** NVML's UUID of the rank's first GPU ("GPU-..."), "" when NVML does not say. */
    std::string uuid() const;
    /** Why the GPM columns are absent ("" when GPM is read). */
    const std::string& gpm_why_not() const noexcept { return gpm_why_not_; }

private:
    void run();
    Sample read_sample() const;
    DeviceReading read_device(nvml::Device device) const;
    FaultCounters read_counters() const;
    /** Takes a sample, drains pending Xid events and feeds both to every open window. mutex_ held. */
    Sample sample_locked();
    /** Drains pending Xid events into every open window (or pending_xids_) and the totals. mutex_ held. */
    std::vector<unsigned long long> drain_xids_locked();

    std::shared_ptr<NvmlLibrary> nvml_;
    std::vector<nvml::Device> devices_;
    std::chrono::duration<double> interval_;
    nvml::EventSet events_ = nullptr;  ///< null where Xid events cannot be watched
    std::unique_ptr<GpmReader> gpm_;   ///< null where GPM cannot be read (gpm_why_not_ says why)
    std::string gpm_why_not_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    WindowId next_ = 0;
    std::map<WindowId, TelemetryWindow> windows_;
    std::vector<unsigned long long> pending_xids_;  ///< seen while no task ran: the next task's
    int xid_total_ = 0;                             ///< every Xid drained so far (fault_totals)
    unsigned long long last_xid_ = 0;
    std::thread thread_;
};

/** A rank's telemetry: the sampler, or null and why there is none. */
struct RankTelemetry {
    std::unique_ptr<TelemetrySampler> sampler;
    std::string why_not;  ///< "telemetry_interval: off", "the rank has no GPU", "no NVML library: ..."
};

/**
 * Starts telemetry for a rank bound to `binding`: loads NVML only when the rank has a GPU and
 * `interval_seconds` > 0, and maps the binding's CUDA_VISIBLE_DEVICES entries to NVML devices.
 */
RankTelemetry start_rank_telemetry(const env::DeviceBinding& binding, double interval_seconds);

}  // namespace shardrun::gpu
