#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shardrun::gpu {

/** One MIG instance of a GPU, as `nvidia-smi -L` lists it. */
struct MigInstance {
    std::string profile;  ///< "3g.40gb"
    int device = 0;       ///< its number inside the GPU
    std::string uuid;     ///< "MIG-c6d4f1ef-...": what CUDA_VISIBLE_DEVICES names it by
};

/** One physical GPU of `nvidia-smi -L`, with its MIG instances (none when MIG is off). */
struct ListedGpu {
    int index = 0;
    std::string name;  ///< "NVIDIA A100-SXM4-80GB"
    std::string uuid;  ///< "GPU-5d5ba0d6-..."
    std::vector<MigInstance> mig;
};

/**
 * Parses `nvidia-smi -L`: lines "GPU <i>: <name> (UUID: GPU-...)", each followed by its
 * "  MIG <profile> Device <d>: (UUID: MIG-...)" lines. Lines of neither form are skipped.
 */
std::vector<ListedGpu> parse_gpu_list(std::string_view text);

/**
 * The devices ranks bind to when any GPU is split into MIG instances: every MIG instance's
 * UUID (a GPU left whole counts as one device, by its GPU UUID), in listing order. Empty when
 * no GPU has MIG instances: ranks then bind to GPUs by ordinal as before.
 */
std::vector<std::string> mig_bind_targets(const std::vector<ListedGpu>& gpus);

/** The lines `info` and `plan` print about the MIG devices ("GPU 0 ... : MIG 3g.40gb device 0 MIG-..."). */
std::vector<std::string> mig_lines(const std::vector<ListedGpu>& gpus);

}  // namespace shardrun::gpu
