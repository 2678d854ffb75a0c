#include "runner/process/group_rendezvous.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstring>

namespace shardrun::process {
namespace {

constexpr int exit_tag = 91;

// Binding port 0 makes the kernel choose a free port; it stays free for the moment the
// program needs to bind it, as with torchrun's default MASTER_PORT choice.
int free_port()
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 29500;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    int port = 29500;
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
        port = ntohs(address.sin_port);
    }
    close(fd);
    return port;
}

}  // namespace

Rendezvous agree_rendezvous(collectives::Communicator* group, const std::string& leader_host)
{
    if (group == nullptr || group->size() == 1) return {leader_host, free_port()};
    std::array<char, 256> host{};
    std::int32_t port = 0;
    if (group->rank() == 0) {
        std::strncpy(host.data(), leader_host.c_str(), host.size() - 1);
        port = free_port();
    }
    group->broadcast(std::span<char>(host), 0);
    port = group->broadcast_value(port, 0);
    return {host.data(), port};
}

PeerExits::PeerExits(collectives::Communicator& group)
    : group_(group), codes_(static_cast<size_t>(group.size()), 0), arrived_(codes_.size(), false)
{
    for (int m = 0; m < group.size(); ++m) {
        if (m == group.rank()) {
            receives_.emplace_back();
            continue;
        }
        receives_.push_back(group.irecv(std::span<std::int32_t>(&codes_[static_cast<size_t>(m)], 1), m, exit_tag));
    }
}

PeerExits::~PeerExits()
{
    if (!finished_) finish(1);
}

int PeerExits::failed_peer()
{
    for (size_t m = 0; m < receives_.size(); ++m) {
        if (!arrived_[m] && static_cast<int>(m) != group_.rank()) arrived_[m] = receives_[m].test();
        if (arrived_[m] && codes_[m] != 0) return static_cast<int>(m);
    }
    return -1;
}

void PeerExits::finish(int exit_code)
{
    finished_ = true;
    codes_[static_cast<size_t>(group_.rank())] = exit_code;
    const std::int32_t mine = exit_code;
    std::vector<collectives::Request> sends;
    for (int m = 0; m < group_.size(); ++m) {
        if (m != group_.rank()) sends.push_back(group_.isend(std::span<const std::int32_t>(&mine, 1), m, exit_tag));
    }
    collectives::wait_all(sends);
    collectives::wait_all(receives_);
}

}  // namespace shardrun::process
