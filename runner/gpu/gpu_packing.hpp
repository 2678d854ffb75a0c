#pragma once

#include <string>
#include <vector>

namespace shardrun::gpu {

/** A made-up node's MIG split for `plan --mig 3g.40gb:2`: each GPU split into `per_gpu` instances. */
struct MigSplit {
    std::string profile;  ///< empty: GPUs left whole
    int per_gpu = 0;
};

/** Parses "<profile>:<N>" (N >= 1). @return nullopt-like empty profile and a reason when malformed */
MigSplit parse_mig_split(const std::string& text, std::string* problem);

/** One device of a node and the local ranks bound to it. */
struct DeviceShare {
    std::string device;      ///< "GPU 1" or "GPU 1 MIG 3g.40gb device 0"
    std::vector<int> ranks;  ///< local ranks, ascending
};

/**
 * How `run` packs a node: its devices (each GPU, or each MIG instance of each GPU) in order,
 * and local rank r bound to device r mod (device count), as bind_device does. Devices no rank
 * reaches are listed with no ranks.
 * @param ranks  ranks on the node
 * @param gpus  GPUs of the node (> 0)
 */
std::vector<DeviceShare> pack_node(int ranks, int gpus, const MigSplit& mig);

}  // namespace shardrun::gpu
