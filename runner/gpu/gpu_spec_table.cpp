#include "runner/gpu/gpu_spec_table.hpp"

#include <array>

namespace shardrun::gpu {
namespace {

struct Entry {
    std::string_view marker;  ///< what the device's name holds
    GpuSpec spec;
};

// Datasheet peaks (dense). Most specific marker first: the first match wins.
constexpr std::array<Entry, 13> table{{
    {"GH200", {"GH200", 989, 67, 67}},
    {"H200 NVL", {"H200 NVL", 835, 60, 60}},
    {"H200", {"H200", 989, 67, 67}},
    {"H100 NVL", {"H100 NVL", 835, 60, 60}},
    {"H100 PCIe", {"H100 PCIe", 756, 51, 51}},
    {"H100", {"H100 SXM", 989, 67, 67}},
    {"A100", {"A100", 312, 19.5, 19.5}},
    {"L40S", {"L40S", 362, 91.6, 1.4}},
    {"L40", {"L40", 181, 90.5, 1.4}},
    {"L4", {"L4", 121, 30.3, 0.49}},
    {"A10G", {"A10G", 0, 31.2, 0}},
    {"A10", {"A10", 125, 31.2, 0.98}},
    {"V100", {"V100", 0, 15.7, 7.8}},
}};

}  // namespace

double GpuSpec::peak(std::string_view precision) const noexcept
{
    if (precision == "bf16") return bf16;
    if (precision == "fp32") return fp32;
    if (precision == "fp64") return fp64;
    return 0;
}

std::optional<GpuSpec> spec_of(std::string_view device_name)
{
    // A MIG instance ("NVIDIA H100 80GB HBM3 MIG 1g.10gb") has a slice of the board's peak: no floor from the sheet.
    if (device_name.find("MIG") != std::string_view::npos) return std::nullopt;
    for (const auto& entry : table) {
        if (device_name.find(entry.marker) != std::string_view::npos) return entry.spec;
    }
    return std::nullopt;
}

}  // namespace shardrun::gpu
