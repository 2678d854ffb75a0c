#include "runner/gpu/device_evidence.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace shardrun::gpu {
namespace {

constexpr std::array<std::pair<unsigned long long, const char*>, 8> reason_names{{
    {nvml::clocks_event_sw_power_cap, "sw_power_cap"},
    {nvml::clocks_event_hw_slowdown, "hw_slowdown"},
    {nvml::clocks_event_sw_thermal, "sw_thermal_slowdown"},
    {nvml::clocks_event_hw_thermal, "hw_thermal_slowdown"},
    {nvml::clocks_event_hw_power_brake, "hw_power_brake"},
    {nvml::clocks_event_applications_clocks, "applications_clocks"},
    {nvml::clocks_event_sync_boost, "sync_boost"},
    {nvml::clocks_event_display_clocks, "display_clocks"},
}};

int clock_of(nvml::ClockFn fn, nvml::Device device, int type)
{
    unsigned int mhz = 0;
    return fn != nullptr && fn(device, type, &mhz) == nvml::success ? static_cast<int>(mhz) : -1;
}

std::string text_of(nvml::TextFn fn, nvml::Device device)
{
    char text[nvml::device_name_size] = {};
    return fn != nullptr && fn(device, text, sizeof text) == nvml::success ? std::string(text) : std::string();
}

/** Uncorrected ECC since the driver loaded, pages or rows waiting for a reset, a failed remapping. */
std::vector<std::string> errors_of(const NvmlLibrary::Functions& fn, nvml::Device device)
{
    std::vector<std::string> errors;
    unsigned long long ecc = 0;
    if (fn.ecc != nullptr && fn.ecc(device, nvml::memory_error_uncorrected, nvml::volatile_ecc, &ecc) == nvml::success &&
        ecc > 0) {
        errors.push_back(fmt::format("{} uncorrected ECC error{} since the driver loaded", ecc, ecc == 1 ? "" : "s"));
    }
    int pending = 0;
    if (fn.retired_pages_pending != nullptr && fn.retired_pages_pending(device, &pending) == nvml::success && pending != 0) {
        errors.push_back("pages pending retirement (the GPU needs a reset)");
    }
    unsigned int corrected = 0, uncorrected = 0, remap_pending = 0, failed = 0;
    if (fn.remapped_rows != nullptr &&
        fn.remapped_rows(device, &corrected, &uncorrected, &remap_pending, &failed) == nvml::success) {
        if (remap_pending != 0) errors.push_back("a row remapping pending (the GPU needs a reset)");
        if (failed != 0) errors.push_back("a row remapping failed");
    }
    return errors;
}

}  // namespace

std::string clocks_event_names(unsigned long long mask)
{
    std::vector<std::string> names;
    for (const auto& [bit, name] : reason_names) {
        if ((mask & bit) != 0) names.emplace_back(name);
    }
    return fmt::format("{}", fmt::join(names, ","));
}

DeviceEvidence read_device_evidence(const NvmlLibrary& nvml, nvml::Device device)
{
    const auto& fn = nvml.fn();
    DeviceEvidence evidence;
    evidence.name = text_of(fn.name, device);
    evidence.uuid = text_of(fn.uuid, device);
    evidence.sm_clock_mhz = clock_of(fn.clock, device, nvml::clock_sm);
    evidence.sm_clock_max_mhz = clock_of(fn.max_clock, device, nvml::clock_sm);
    evidence.mem_clock_mhz = clock_of(fn.clock, device, nvml::clock_mem);
    unsigned long long reasons = 0;
    if (fn.clocks_event_reasons != nullptr && fn.clocks_event_reasons(device, &reasons) == nvml::success) {
        evidence.throttle = clocks_event_names(reasons);
    }
    evidence.errors = errors_of(fn, device);
    return evidence;
}

}  // namespace shardrun::gpu
