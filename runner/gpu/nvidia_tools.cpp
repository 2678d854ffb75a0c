#include "runner/gpu/nvidia_tools.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "runner/gpu/mig_devices.hpp"

namespace shardrun::gpu {

std::string find_on_path(const std::string& program)
{
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path != nullptr ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const auto candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
        if (access(candidate.c_str(), X_OK) == 0) return std::filesystem::absolute(candidate).string();
    }
    return "";
}

std::optional<std::string> nvidia_smi_list()
{
    const auto program = find_on_path("nvidia-smi");
    if (program.empty()) return std::nullopt;
    // The path is PATH's folder and a fixed name: nothing from the job reaches the shell.
    FILE* pipe = popen(("'" + program + "' -L 2>/dev/null").c_str(), "r");
    if (pipe == nullptr) return std::nullopt;
    std::string text;
    char buffer[4096];
    for (size_t got; (got = fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, got);
    return pclose(pipe) == 0 ? std::optional<std::string>(text) : std::nullopt;
}

std::string mig_report()
{
    // info's lines under the rank table are "  label       value" (telemetry, GPM, CPU energy):
    // MIG's line keeps their columns, and its devices are indented like NVML's GPUs.
    const std::string label = "  MIG         ";
    const std::string continued(label.size(), ' ');
    const auto listing = nvidia_smi_list();
    if (!listing) return label + "unknown (nvidia-smi is not on PATH, or failed)\n";
    const auto gpus = parse_gpu_list(*listing);
    if (mig_bind_targets(gpus).empty()) {
        return label + "off (" + std::to_string(gpus.size()) + " whole GPU" + (gpus.size() == 1 ? "" : "s") +
               " listed by nvidia-smi)\n";
    }
    std::string text = label + "on: ranks bind to one device each, by UUID in CUDA_VISIBLE_DEVICES\n";
    for (const auto& line : mig_lines(gpus)) text += continued + line + "\n";
    return text;
}

}  // namespace shardrun::gpu
