#pragma once

#include <sys/types.h>

#include <atomic>

#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/**
 * The process of the previous rank on this node (in node rank order, cyclically), watched by
 * its pid: a rank killed outright (kill -9, the OOM killer) is gone at once, where the
 * heartbeat ring would wait rank_timeout, and mpirun ends the whole job within 2 s of it. A
 * rank alone on its node watches nobody. Construction is collective over `world` and `node`.
 */
class NeighbourProcess {
public:
    NeighbourProcess(Communicator& world, Communicator& node);

    /** True when a neighbour is watched and its process no longer exists. Cheap (one kill(pid, 0)). */
    bool gone() const;
    /** The world rank of the watched neighbour; -1 when there is none. */
    int world_rank() const noexcept { return world_rank_; }
    /**
     * Stops watching: past the last point where every rank is known to be still running (the
     * run's ending), a neighbour may exit normally before this rank does.
     */
    void disarm() noexcept { armed_.store(false); }

private:
    pid_t pid_ = 0;
    int world_rank_ = -1;
    std::atomic<bool> armed_{true};
};

}  // namespace shardrun::collectives
