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

std::string DeviceBinding::label() const { return cuda ? "cuda:" + std::to_string(ordinal) : "cpu"; }

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

}  // namespace shardrun::env
