// A rank killed outright is told apart from a silent one by its process being gone (issue 35,
// point 7): with `mpirun -q` a kill -9 printed nothing before mpirun ended the job.
#include "collectives/liveness/neighbour_process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace shardrun::collectives {

NeighbourProcess::NeighbourProcess(Communicator& world, Communicator& node)
{
    const std::int64_t mine[2] = {static_cast<std::int64_t>(::getpid()), world.rank()};
    std::vector<std::int64_t> all(2 * static_cast<std::size_t>(node.size()));
    node.allgather(std::span<const std::int64_t>(mine, 2), std::span<std::int64_t>(all));
    if (node.size() < 2) return;
    const auto previous = static_cast<std::size_t>((node.rank() + node.size() - 1) % node.size());
    pid_ = static_cast<pid_t>(all[2 * previous]);
    world_rank_ = static_cast<int>(all[2 * previous + 1]);
}

bool NeighbourProcess::gone() const
{
    if (world_rank_ < 0 || !armed_.load()) return false;
    // Its parent (mpirun's daemon, slurmstepd) reaps it at once: a zombie would still answer.
    return ::kill(pid_, 0) != 0 && errno == ESRCH;
}

}  // namespace shardrun::collectives
