#include "runner/gpu/mig_devices.hpp"

#include <fmt/format.h>

#include <regex>
#include <sstream>

namespace shardrun::gpu {

std::vector<ListedGpu> parse_gpu_list(std::string_view text)
{
    static const std::regex gpu_line(R"(^GPU\s+(\d+):\s*(.*?)\s*\(UUID:\s*(GPU-[^)\s]+)\)\s*$)");
    static const std::regex mig_line(R"(^\s+MIG\s+(\S+)\s+Device\s+(\d+):\s*\(UUID:\s*(MIG-[^)\s]+)\)\s*$)");
    std::vector<ListedGpu> gpus;
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::smatch match;
        if (std::regex_match(line, match, gpu_line)) {
            gpus.push_back({std::stoi(match[1].str()), match[2].str(), match[3].str(), {}});
        } else if (!gpus.empty() && std::regex_match(line, match, mig_line)) {
            gpus.back().mig.push_back({match[1].str(), std::stoi(match[2].str()), match[3].str()});
        }
    }
    return gpus;
}

std::vector<std::string> mig_bind_targets(const std::vector<ListedGpu>& gpus)
{
    std::vector<std::string> targets;
    bool any_mig = false;
    for (const auto& gpu : gpus) {
        any_mig = any_mig || !gpu.mig.empty();
        if (gpu.mig.empty()) targets.push_back(gpu.uuid);
        for (const auto& instance : gpu.mig) targets.push_back(instance.uuid);
    }
    return any_mig ? targets : std::vector<std::string>{};
}

std::vector<std::string> mig_lines(const std::vector<ListedGpu>& gpus)
{
    std::vector<std::string> lines;
    for (const auto& gpu : gpus) {
        if (gpu.mig.empty()) {
            lines.push_back(fmt::format("GPU {} {}: whole (MIG off) {}", gpu.index, gpu.name, gpu.uuid));
        }
        for (const auto& instance : gpu.mig) {
            lines.push_back(fmt::format("GPU {} {}: MIG {} device {} {}", gpu.index, gpu.name, instance.profile,
                                       instance.device, instance.uuid));
        }
    }
    return lines;
}

}  // namespace shardrun::gpu
