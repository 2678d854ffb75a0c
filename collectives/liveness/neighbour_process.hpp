#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>

#include "collectives/claims/node_segment.hpp"
#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/**
 * The process of the previous rank on this node (in node rank order, cyclically), watched by
 * its pid: a rank killed outright (kill -9, the OOM killer) is gone at once, where the
 * heartbeat ring would wait rank_timeout, and mpirun ends the whole job within 2 s of it. A
 * rank that ends on purpose (its run is over, or it unwinds an error it reports itself) says so
 * first in node shared memory (leaving()), and is not reported. A rank alone on its node
 * watches nobody. Construction is collective over `world` and `node`.
 */
class NeighbourProcess {
public:
    NeighbourProcess(Communicator& world, Communicator& node);

    /** True when the watched neighbour's process no longer exists and it did not say it was leaving. Cheap. */
    bool gone() const;
    /** This rank ends on purpose: the rank that watches it must not report it. */
    void leaving() noexcept;
    /** The world rank of the watched neighbour; -1 when there is none. */
    int world_rank() const noexcept { return world_rank_; }
    /**
     * Stops watching: past the last point where every rank is known to be still running (the
     * run's ending), a neighbour may exit normally before this rank does.
     */
    void disarm() noexcept { armed_.store(false); }

private:
    std::unique_ptr<NodeSegment> segment_;
    std::span<std::atomic<std::int32_t>> leaving_;  ///< one flag per node rank, in segment_
    int node_rank_ = 0;
    int neighbour_node_rank_ = -1;
    pid_t pid_ = 0;
    int world_rank_ = -1;
    std::atomic<bool> armed_{true};
};

}  // namespace shardrun::collectives
