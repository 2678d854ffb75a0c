#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/gpu/nvml_library.hpp"
#include "runner/gpu/telemetry_window.hpp"

namespace shardrun::gpu {

/**
 * NVML's GPM counters of a rank's devices: each advance() takes a new sample of every device
 * and returns what the SMs did since the previous one (SM activity, occupancy, tensor-core
 * activity, DRAM bandwidth, in %, averaged over the devices). A MIG device is sampled through
 * its parent GPU and its GPU instance (nvmlGpmMigSampleGet). Not thread-safe: the sampler holds
 * its lock around it.
 */
class GpmReader {
public:
    /**
     * A reader for `devices`, or null with one line in `why_not` ("the NVML library has no GPM
     * calls (driver older than 520)", "GPU 0 (NVIDIA A100) does not support GPM (Hopper or later)").
     */
    static std::unique_ptr<GpmReader> open(std::shared_ptr<NvmlLibrary> nvml, const std::vector<nvml::Device>& devices,
                                           std::string& why_not);
    ~GpmReader();
    GpmReader(const GpmReader&) = delete;
    GpmReader& operator=(const GpmReader&) = delete;

    /** The rates since the previous call; nullopt on the first call or when a sample failed. */
    std::optional<GpmRates> advance();

private:
    struct Source {
        nvml::Device device = nullptr;  ///< the GPU, or a MIG device's parent
        std::optional<unsigned> gpu_instance;  ///< set for a MIG device
        nvml::GpmSample previous = nullptr, next = nullptr;
        bool has_previous = false;
    };
    explicit GpmReader(std::shared_ptr<NvmlLibrary> nvml) : nvml_(std::move(nvml)) {}
    bool take(Source& source, nvml::GpmSample into) const;

    std::shared_ptr<NvmlLibrary> nvml_;
    std::vector<Source> sources_;
    std::chrono::steady_clock::time_point previous_time_;
};

/** Why GPM cannot be read on `device` ("" when it can): for `info`. */
std::string gpm_why_not(const NvmlLibrary& nvml, nvml::Device device);

}  // namespace shardrun::gpu
