#pragma once

#include <optional>
#include <string>

namespace shardrun::env {

/** The device one rank computes on. */
struct DeviceBinding {
    bool cuda = false;
    int ordinal = -1;         ///< CUDA ordinal inside this process's visible set; -1 on the CPU
    std::string visible_id;   ///< the CUDA_VISIBLE_DEVICES entry (or ordinal) an exec task gets
    std::string reason;       ///< why this device: "narrowed by scheduler", "local rank 3 mod 4 devices", why CPU

    /** "cpu" or "cuda:<ordinal>". */
    std::string label() const;
};

/**
 * Binds a rank to a device.
 *
 * No device -> CPU. When CUDA_VISIBLE_DEVICES already names exactly one device (Slurm
 * --gpus-per-task=1, a per-rank wrapper) the rank takes it; otherwise local rank modulo
 * device count.
 * @param device_count  devices the CUDA runtime sees (after CUDA_VISIBLE_DEVICES)
 * @param visible_devices  the CUDA_VISIBLE_DEVICES value, if set
 * @param local_rank  rank on this node
 * @param no_device_reason  shown when device_count is 0
 */
DeviceBinding bind_device(int device_count, const std::optional<std::string>& visible_devices,
                          int local_rank, const std::string& no_device_reason);

}  // namespace shardrun::env
