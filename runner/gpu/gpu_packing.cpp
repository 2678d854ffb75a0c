#include "runner/gpu/gpu_packing.hpp"

#include <fmt/format.h>

namespace shardrun::gpu {

MigSplit parse_mig_split(const std::string& text, std::string* problem)
{
    const auto colon = text.rfind(':');
    const auto count = colon == std::string::npos ? std::string() : text.substr(colon + 1);
    MigSplit split{colon == std::string::npos ? std::string() : text.substr(0, colon), 0};
    if (!count.empty() && count.size() <= 3 && count.find_first_not_of("0123456789") == std::string::npos) {
        split.per_gpu = std::stoi(count);
    }
    if (split.profile.empty() || split.per_gpu < 1) {
        if (problem != nullptr) {
            *problem = fmt::format("--mig '{}': expected <profile>:<instances per GPU>, e.g. 3g.40gb:2", text);
        }
        return {};
    }
    return split;
}

std::vector<DeviceShare> pack_node(int ranks, int gpus, const MigSplit& mig)
{
    std::vector<DeviceShare> devices;
    for (int g = 0; g < gpus; ++g) {
        if (mig.per_gpu < 1) devices.push_back({fmt::format("GPU {}", g), {}});
        for (int i = 0; i < mig.per_gpu; ++i) {
            devices.push_back({fmt::format("GPU {} MIG {} device {}", g, mig.profile, i), {}});
        }
    }
    if (devices.empty()) return devices;
    for (int r = 0; r < ranks; ++r) devices[static_cast<size_t>(r) % devices.size()].ranks.push_back(r);
    return devices;
}

}  // namespace shardrun::gpu
