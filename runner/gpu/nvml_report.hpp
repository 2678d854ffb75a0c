#pragma once

#include <string>
#include <vector>

#include "runner/gpu/nvml_library.hpp"

namespace shardrun::gpu {

/** What `shardrun info` says about GPU telemetry on this node. */
struct NvmlStatus {
    bool available = false;
    std::string why_not;        ///< why /tasks/gpu_* will be absent; empty when available
    std::string library;        ///< the path dlopen'ed (SHARDRUN_NVML_LIBRARY or libnvidia-ml.so.1)
    std::string driver_version;
    std::vector<NvmlDeviceInfo> devices;
    std::string gpm_why_not;    ///< why /tasks/gpu_sm_active etc. will be absent; empty where every GPU has GPM
};

/**
 * Loads NVML to report on it, only where CUDA sees a GPU.
 * @param cuda_devices  GPUs the CUDA runtime sees on this node
 * @param no_device_reason  why it sees none
 */
NvmlStatus probe_nvml(int cuda_devices, const std::string& no_device_reason);

/** The lines `info` prints ("  telemetry   NVML 580.159.04: 2 GPUs" and one per GPU, or why none). */
std::string nvml_status_lines(const NvmlStatus& status);

/** The same as a JSON object text: {"available", "why_not", "library", "driver_version", "devices": [{name, uuid}], "gpm": {"available", "why_not"}}. */
std::string nvml_status_json(const NvmlStatus& status);

}  // namespace shardrun::gpu
