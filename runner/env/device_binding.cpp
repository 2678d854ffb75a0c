#include "runner/env/device_binding.hpp"

#include <sstream>
#include <vector>

namespace shardrun::env {
namespace {

std::vector<std::string> split_ids(const std::string& list)
{
    std::vector<std::string> ids;
    std::stringstream stream(list);
    std::string id;
    while (std::getline(stream, id, ',')) {
        if (!id.empty()) ids.push_back(id);
    }
    return ids;
}

}  // namespace

std::string DeviceBinding::label() const
{
    if (!cuda) return "cpu";
    std::string text = "cuda:" + std::to_string(ordinal);
    for (int k = 1; k < count; ++k) text += "+" + std::to_string(ordinal + k);
    return text;
}

DeviceBinding bind_device(int device_count, const std::optional<std::string>& visible_devices,
                          int local_rank, const std::string& no_device_reason)
{
    DeviceBinding binding;
    if (device_count <= 0) {
        binding.reason = no_device_reason.empty() ? "no CUDA device" : no_device_reason;
        return binding;
    }
    const auto ids = visible_devices ? split_ids(*visible_devices) : std::vector<std::string>{};
    binding.cuda = true;
    if (visible_devices && ids.size() == 1) {
        binding.ordinal = 0;
        binding.reason = "CUDA_VISIBLE_DEVICES names one device";
    } else {
        binding.ordinal = local_rank % device_count;
        binding.reason = "local rank " + std::to_string(local_rank) + " mod " + std::to_string(device_count) +
                         " devices";
    }
    const auto index = static_cast<size_t>(binding.ordinal);
    binding.visible_id = index < ids.size() ? ids[index] : std::to_string(binding.ordinal);
    return binding;
}

PackedDevices pack_devices(int device_count, const std::optional<std::string>& visible_devices, int local_rank,
                           int gpus_per_rank)
{
    PackedDevices packed;
    auto& binding = packed.binding;
    const auto ids = visible_devices ? split_ids(*visible_devices) : std::vector<std::string>{};
    const bool named = ids.size() == static_cast<size_t>(gpus_per_rank);  // the launcher picked this rank's set
    const int first = named ? 0 : local_rank * gpus_per_rank;
    if (device_count <= 0 || first + gpus_per_rank > device_count) {
        packed.problem = "gpus_per_rank: " + std::to_string(gpus_per_rank) + " needs GPUs " + std::to_string(first) +
                         ".." + std::to_string(first + gpus_per_rank - 1) + " for local rank " +
                         std::to_string(local_rank) + ", but this node shows " + std::to_string(device_count) +
                         "; start fewer ranks per node or lower gpus_per_rank";
        return packed;
    }
    binding.cuda = true;
    binding.ordinal = first;
    binding.count = gpus_per_rank;
    binding.reason = named ? "CUDA_VISIBLE_DEVICES names the rank's " + std::to_string(gpus_per_rank) + " devices"
                           : "local rank " + std::to_string(local_rank) + " x " + std::to_string(gpus_per_rank) +
                                 " GPUs per rank";
    for (int k = first; k < first + gpus_per_rank; ++k) {
        const auto index = static_cast<size_t>(k);
        binding.visible_id += (binding.visible_id.empty() ? "" : ",") + (index < ids.size() ? ids[index] : std::to_string(k));
    }
    return packed;
}

}  // namespace shardrun::env
