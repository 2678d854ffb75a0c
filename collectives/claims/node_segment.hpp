#pragma once

#include <cstddef>

#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/**
 * A block of memory shared by the members of a node communicator, made with POSIX shared
 * memory rather than an MPI window so it works whichever one-sided component Open MPI picks
 * (osc/pt2pt offers no shared windows). The name is unlinked as soon as every member has it
 * mapped, so a crash leaves nothing in /dev/shm. Construction is collective over `node`;
 * the node's rank 0 zero-fills it.
 */
class NodeSegment {
public:
    NodeSegment(Communicator& node, std::size_t bytes);
    ~NodeSegment();
    NodeSegment(const NodeSegment&) = delete;
    NodeSegment& operator=(const NodeSegment&) = delete;

    void* data() const noexcept { return data_; }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace shardrun::collectives
