#include "collectives/claims/claim_doorbell.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/stat.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

namespace shardrun::collectives {
namespace {

// What rank 0 tells every rank: where its socket listens. Plain bytes: every rank runs the same build.
struct Announcement {
    std::uint16_t port = 0;  // network order; 0: no doorbell
    std::uint16_t count = 0;
    std::array<std::uint32_t, 16> addresses{};  // IPv4, network order, loopback ones included
    std::array<char, 256> identity{};  // loopback_identity()
};

// Which loopback this process reaches: the same boot of the same kernel and the same network
// namespace. Hostnames alone are not enough: containers on different hosts may share one, and
// network namespaces on one host may have their own.
std::array<char, 256> loopback_identity()
{
    std::array<char, 256> identity{};
    std::ifstream boot("/proc/sys/kernel/random/boot_id");
    std::string boot_id;
    std::getline(boot, boot_id);
    struct stat net {};
    const auto namespace_id = stat("/proc/self/ns/net", &net) == 0 ? std::to_string(net.st_ino) : std::string();
    std::array<char, 128> host{};
    gethostname(host.data(), host.size() - 1);
    const auto text = boot_id + "/" + namespace_id + "/" + host.data();
    std::strncpy(identity.data(), text.c_str(), identity.size() - 1);
    return identity;
}

bool is_loopback(std::uint32_t address) { return (ntohl(address) >> 24) == 127; }

// Every IPv4 address of this host's interfaces that are up.
void add_addresses(Announcement& announcement)
{
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return;
    for (auto* entry = list; entry != nullptr && announcement.count < announcement.addresses.size(); entry = entry->ifa_next) {
        if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET || !(entry->ifa_flags & IFF_UP)) continue;
        announcement.addresses[announcement.count++] = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr.s_addr;
    }
    freeifaddrs(list);
}

// A non-blocking UDP socket bound to every address on a port the kernel picks; -1 on failure.
int open_listener(std::uint16_t& port)
{
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t length = sizeof(address);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        close(fd);
        return -1;
    }
    port = address.sin_port;
    return fd;
}

}  // namespace

ClaimDoorbell::ClaimDoorbell(Communicator& world, bool enabled)
{
    Announcement announcement;
    if (world.rank() == 0 && enabled) {
        listen_fd_ = open_listener(announcement.port);
        if (listen_fd_ >= 0) {
            add_addresses(announcement);
            announcement.identity = loopback_identity();
        }
    }
    auto bytes = std::span<char>(reinterpret_cast<char*>(&announcement), sizeof(announcement));
    world.broadcast(bytes, 0);
    if (announcement.port == 0 || announcement.count == 0) {
        if (listen_fd_ >= 0) close(listen_fd_);  // nobody could ring it
        listen_fd_ = -1;
        return;
    }
    const bool same_loopback = world.rank() == 0 || loopback_identity() == announcement.identity;
    for (std::size_t k = 0; k < announcement.count; ++k) {
        const auto address = announcement.addresses[k];
        // Same loopback (rank 0 itself included): that address only. Another host: the rest.
        if (is_loopback(address) != same_loopback) continue;
        sockaddr_in target{};
        target.sin_family = AF_INET;
        target.sin_port = announcement.port;
        target.sin_addr.s_addr = address;
        targets_.push_back(target);
    }
    if (targets_.empty()) return;
    send_fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (send_fd_ < 0) targets_.clear();
}

ClaimDoorbell::~ClaimDoorbell()
{
    if (listen_fd_ >= 0) close(listen_fd_);
    if (send_fd_ >= 0) close(send_fd_);
}

void ClaimDoorbell::ring() noexcept
{
    const char byte = 1;
    for (const auto& target : targets_) {
        // A full socket buffer on rank 0 means it has rings enough to wake: dropping this one is fine.
        sendto(send_fd_, &byte, 1, MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&target), sizeof(target));
    }
}

bool ClaimDoorbell::wait(std::chrono::nanoseconds timeout) noexcept
{
    timespec span{};
    span.tv_sec = static_cast<time_t>(timeout.count() / 1000000000);
    span.tv_nsec = static_cast<long>(timeout.count() % 1000000000);
    if (listen_fd_ < 0) {
        nanosleep(&span, nullptr);
        return false;
    }
    // Rings are read here, before sleeping, not after a wake-up, which is on the round trip's
    // path. One read now may be of a message that came after the caller last looked: rung.
    std::array<char, 64> drain{};
    bool rung = false;
    while (recv(listen_fd_, drain.data(), drain.size(), MSG_DONTWAIT) >= 0) rung = true;
    if (rung) return true;
    pollfd entry{listen_fd_, POLLIN, 0};
    return ppoll(&entry, 1, &span, nullptr) > 0;
}

}  // namespace shardrun::collectives
