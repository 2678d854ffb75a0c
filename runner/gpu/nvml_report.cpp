#include "runner/gpu/nvml_report.hpp"

#include "runner/gpu/gpm_reader.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace shardrun::gpu {

NvmlStatus probe_nvml(int cuda_devices, const std::string& no_device_reason)
{
    NvmlStatus status;
    status.library = nvml_library_path();
    if (cuda_devices <= 0) {
        status.why_not = "no GPU" + (no_device_reason.empty() ? std::string() : " (" + no_device_reason + ")");
        return status;
    }
    const auto nvml = NvmlLibrary::open(status.why_not);
    if (!nvml) return status;
    status.available = true;
    status.driver_version = nvml->driver_version();
    status.devices = nvml->all_devices();
    // GPM on every GPU, or the first reason one lacks it (a rank bound to it would leave the columns out).
    unsigned int count = 0;
    if (nvml->fn().device_count(&count) == nvml::success) {
        for (unsigned int i = 0; i < count && status.gpm_why_not.empty(); ++i) {
            nvml::Device device = nullptr;
            if (nvml->fn().handle_by_index(i, &device) == nvml::success) status.gpm_why_not = gpm_why_not(*nvml, device);
        }
    }
    return status;
}

std::string nvml_status_lines(const NvmlStatus& status)
{
    if (!status.available) {
        // GPM's line too, so `info` always says whether the efficiency columns come (README, GPM).
        return fmt::format("  telemetry   none, /tasks/gpu_* left out: {}\n"
                           "  GPM         none, /tasks/gpu_sm_active etc. left out: {}\n", status.why_not, status.why_not);
    }
    std::string out = fmt::format("  telemetry   NVML (driver {}, {}): {} GPU{}\n", status.driver_version, status.library,
                                  status.devices.size(), status.devices.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < status.devices.size(); ++i) {
        out += fmt::format("              {}: {} {}\n", i, status.devices[i].name, status.devices[i].uuid);
    }
    out += status.gpm_why_not.empty()
               ? std::string("  GPM         SM activity, occupancy, tensor, DRAM bandwidth per task (NVML GPM)\n")
               : fmt::format("  GPM         none, /tasks/gpu_sm_active etc. left out: {}\n", status.gpm_why_not);
    return out;
}

std::string nvml_status_json(const NvmlStatus& status)
{
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& device : status.devices) devices.push_back({{"name", device.name}, {"uuid", device.uuid}});
    return nlohmann::json{{"available", status.available},
                          {"why_not", status.why_not},
                          {"library", status.library},
                          {"driver_version", status.driver_version},
                          {"devices", devices},
                          {"gpm", {{"available", status.available && status.gpm_why_not.empty()},
                                   {"why_not", status.available ? status.gpm_why_not : status.why_not}}}}
        .dump();
}

}  // namespace shardrun::gpu
