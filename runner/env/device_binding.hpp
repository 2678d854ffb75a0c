#pragma once

#include <optional>
#include <string>
#include <vector>

namespace shardrun::env {

/** The device one rank computes on. */
struct DeviceBinding {
    bool cuda = false;
    int ordinal = -1;         ///< CUDA ordinal inside this process's visible set; -1 on the CPU
    int count = 1;            ///< GPUs of this process (gpus_per_rank): ordinal .. ordinal+count-1
    std::string visible_id;   ///< the CUDA_VISIBLE_DEVICES value an exec task gets (count entries)
    std::string reason;       ///< why this device: "narrowed by scheduler", "local rank 3 mod 4 devices", why CPU
    /** A CPU task on a rank that may have a GPU (its own device: cpu, or device: auto's routing):
     *  an exec task then gets CUDA_VISIBLE_DEVICES="" so its program sees no GPU either. */
    bool hide_gpus = false;
    /** "NAME=value" variables every task on this device gets besides CUDA_VISIBLE_DEVICES (gpu_sharing: mps). */
    std::vector<std::string> task_env;

    /** "cpu", "cuda:<ordinal>", or with several GPUs "cuda:<ordinal>+<ordinal+1>+...". */
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

/** A rank's GPUs under `gpus_per_rank`, or why it cannot have them. */
struct PackedDevices {
    DeviceBinding binding;
    std::string problem;  ///< empty when the rank got its GPUs
};

/**
 * Gives one rank `gpus_per_rank` GPUs, packed by node: local rank r gets devices
 * r*N .. r*N+N-1 of its node (so one process can drive a model split over N GPUs). When
 * CUDA_VISIBLE_DEVICES already names exactly N devices (Slurm --gpus-per-task=N) the rank
 * takes them all. Never wraps around: a rank beyond the node's GPUs is a `problem`, since
 * two processes sharing GPUs is not what gpus_per_rank asks for.
 * @param device_count  devices the CUDA runtime sees (after CUDA_VISIBLE_DEVICES)
 * @param visible_devices  the CUDA_VISIBLE_DEVICES value, if set
 * @param local_rank  rank on this node
 * @param gpus_per_rank  N >= 1
 */
PackedDevices pack_devices(int device_count, const std::optional<std::string>& visible_devices, int local_rank,
                           int gpus_per_rank);

}  // namespace shardrun::env
