// A rank killed outright is told apart from a silent one by its process being gone (issue 35,
// point 7): with `mpirun -q` a kill -9 printed nothing before mpirun ended the job.
#include "collectives/liveness/neighbour_process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <span>
#include <vector>

namespace shardrun::collectives {

NeighbourProcess::NeighbourProcess(Communicator& world, Communicator& node)
{
    const std::int64_t mine[2] = {static_cast<std::int64_t>(::getpid()), world.rank()};
    std::vector<std::int64_t> all(2 * static_cast<std::size_t>(node.size()));
    node.allgather(std::span<const std::int64_t>(mine, 2), std::span<std::int64_t>(all));
    if (node.size() < 2) return;
    // Zero-filled by the node's rank 0: nobody is leaving yet.
    segment_ = std::make_unique<NodeSegment>(node, sizeof(std::atomic<std::int32_t>) * static_cast<std::size_t>(node.size()));
    leaving_ = std::span<std::atomic<std::int32_t>>(static_cast<std::atomic<std::int32_t>*>(segment_->data()),
                                                    static_cast<std::size_t>(node.size()));
    node_rank_ = node.rank();
    const auto previous = (node.rank() + node.size() - 1) % node.size();
    neighbour_node_rank_ = previous;
    pid_ = static_cast<pid_t>(all[2 * static_cast<std::size_t>(previous)]);
    world_rank_ = static_cast<int>(all[2 * static_cast<std::size_t>(previous) + 1]);
}

void NeighbourProcess::leaving() noexcept
{
    if (segment_) leaving_[static_cast<std::size_t>(node_rank_)].store(1);
}

bool NeighbourProcess::gone() const
{
    if (world_rank_ < 0 || !armed_.load()) return false;
    if (leaving_[static_cast<std::size_t>(neighbour_node_rank_)].load() != 0) return false;
    // Its parent (mpirun's daemon, slurmstepd) reaps it at once: a zombie would still answer.
    return ::kill(pid_, 0) != 0 && errno == ESRCH;
}

}  // namespace shardrun::collectives
