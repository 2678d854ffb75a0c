#pragma once

#include <sched.h>

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
    int threads = 1;  ///< cpus / sharers, at least 1: OMP_NUM_THREADS and the like of its tasks
};

/** Pure: the share of `mine` among the masks of every rank of the node (mine among them). */
CpuShare share_of(const cpu_set_t& mine, const std::vector<cpu_set_t>& node_masks);

/** This process's affinity mask; every CPU the system has configured when it cannot be read. */
cpu_set_t own_affinity();

/** Collective over `node` (the ranks that share memory with this one). */
CpuShare detect_cpu_share(collectives::Communicator& node);

}  // namespace shardrun::env
