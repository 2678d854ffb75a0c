#include "runner/gpu/nvidia_tools.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

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

}  // namespace shardrun::gpu
