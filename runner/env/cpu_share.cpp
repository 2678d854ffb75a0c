#include "runner/env/cpu_share.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <span>

namespace shardrun::env {

CpuShare share_of(const cpu_set_t& mine, const std::vector<cpu_set_t>& node_masks)
{
    CpuShare share;
    share.cpus = std::max(1, CPU_COUNT(&mine));
    share.sharers = 0;
    for (const auto& other : node_masks) {
        cpu_set_t common;
        CPU_AND(&common, &mine, &other);
        if (CPU_COUNT(&common) > 0) ++share.sharers;
    }
    share.sharers = std::max(1, share.sharers);  // mine is among node_masks; an empty list is a node of one
    share.threads = std::max(1, share.cpus / share.sharers);
    return share;
}

cpu_set_t own_affinity()
{
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) return mask;
    const long configured = std::clamp(sysconf(_SC_NPROCESSORS_CONF), 1L, static_cast<long>(CPU_SETSIZE));
    for (long cpu = 0; cpu < configured; ++cpu) CPU_SET(static_cast<int>(cpu), &mask);
    return mask;
}

CpuShare detect_cpu_share(collectives::Communicator& node)
{
    const cpu_set_t mine = own_affinity();
    // cpu_set_t is plain bytes (CPU_SETSIZE bits): one allgather carries every rank's mask.
    std::vector<cpu_set_t> masks(static_cast<size_t>(node.size()));
    node.allgather(std::span<const char>(reinterpret_cast<const char*>(&mine), sizeof mine),
                   std::span<char>(reinterpret_cast<char*>(masks.data()), sizeof(cpu_set_t) * masks.size()));
    return share_of(mine, masks);
}

}  // namespace shardrun::env
