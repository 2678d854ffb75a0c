#pragma once

#include <sched.h>

#include <optional>
#include <string_view>
#include <vector>

#include "collectives/communicator.hpp"

namespace shardrun::env {

/**
 * The CPUs one rank may use, and the threads each of its tasks should start.
 *
 * The rank's CPUs are its affinity mask: what mpirun's binding (--bind-to), srun's --cpu-bind or
 * the container left it. Ranks of one node whose masks overlap share those CPUs, so each gets
 * its part: unbound ranks (mpirun --bind-to none, the cloud entrypoint) split the node's CPUs,
 * ranks bound to their own cores (--map-by slot:PE=4, srun --cpus-per-task=4) keep theirs.
 */
struct CpuShare {
    int cpus = 1;     ///< CPUs in this rank's affinity mask
    int sharers = 1;  ///< ranks of this node whose mask overlaps this rank's, itself included
    /** cpus / sharers, at least 1: OMP_NUM_THREADS and the like of its tasks; never above the
     *  cgroup's CPU quota (docker --cpus, a Kubernetes limit) over the node's ranks. */
    int threads = 1;
};

/**
 * Pure: the share of `mine` among the masks of every rank of the node (mine among them).
 * @param quota_cpus  the CPUs the cgroup's quota allows the whole node (container), if it has one
 */
CpuShare share_of(const cpu_set_t& mine, const std::vector<cpu_set_t>& node_masks,
                  std::optional<int> quota_cpus = std::nullopt);

/** Pure: the CPUs a cgroup CPU quota allows (rounded up), from cgroup v2's cpu.max ("200000 100000",
 *  "max 100000") or v1's quota and period in microseconds ("-1": none). */
std::optional<int> quota_cpus_of(std::string_view quota, std::string_view period);

/** The CPU quota of this process's cgroup (v2 cpu.max, v1 cpu.cfs_quota_us), if any. */
std::optional<int> own_quota_cpus();

/** Pure: the smaller of the cgroup's quota and the CPUs the node was given (SHARDRUN_CPUS: what
 *  `submit` reserved for the container, e.g. AWS Batch's VCPU, a weight the kernel does not enforce).
 *  A given text that is not a positive number is ignored. */
std::optional<int> node_cpu_limit(std::optional<int> quota_cpus, std::string_view given_cpus);

/** This process's affinity mask; every CPU the system has configured when it cannot be read. */
cpu_set_t own_affinity();

/** Collective over `node` (the ranks that share memory with this one). */
CpuShare detect_cpu_share(collectives::Communicator& node);

}  // namespace shardrun::env
