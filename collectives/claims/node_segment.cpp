#include "collectives/claims/node_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

#include "base/error.hpp"

namespace shardrun::collectives {
namespace {

std::string unique_name()
{
    std::random_device random;
    return "/shardrun-" + std::to_string(getpid()) + "-" + std::to_string(random());
}

void* map_segment(const char* name, std::size_t bytes, bool create, std::string& error)
{
    const int fd = shm_open(name, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
    if (fd < 0) {
        error = std::string("shm_open ") + name + ": " + std::strerror(errno);
        return nullptr;
    }
    if (create && ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        error = std::string("ftruncate ") + name + ": " + std::strerror(errno);
        close(fd);
        return nullptr;
    }
    void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (data == MAP_FAILED) {
        error = std::string("mmap ") + name + ": " + std::strerror(errno);
        return nullptr;
    }
    return data;
}

}  // namespace

NodeSegment::NodeSegment(Communicator& node, std::size_t bytes) : bytes_(bytes)
{
    std::array<char, 64> name{};
    std::string error;
    if (node.rank() == 0) {
        std::strncpy(name.data(), unique_name().c_str(), name.size() - 1);
        data_ = map_segment(name.data(), bytes, true, error);
        if (data_ != nullptr) std::memset(data_, 0, bytes);
    }
    node.broadcast(std::span<char>(name), 0);
    const bool leader_ok = node.broadcast_value<std::int32_t>(data_ != nullptr ? 1 : 0, 0) != 0;
    if (node.rank() != 0 && leader_ok) data_ = map_segment(name.data(), bytes, false, error);
    const bool all_ok = node.allreduce_value<std::int32_t>(data_ != nullptr ? 1 : 0, ReduceOp::min) != 0;
    if (node.rank() == 0 && leader_ok) shm_unlink(name.data());
    if (!all_ok) {
        if (data_ != nullptr) munmap(data_, bytes_);
        data_ = nullptr;
        SHARDRUN_THROW(Error, "node-local shared memory for the work counters failed" +
                                 (error.empty() ? std::string(" on another rank of this node") : ": " + error) +
                                 " (is /dev/shm mounted and writable?)");
    }
}

NodeSegment::~NodeSegment()
{
    if (data_ != nullptr) munmap(data_, bytes_);
}

}  // namespace shardrun::collectives
