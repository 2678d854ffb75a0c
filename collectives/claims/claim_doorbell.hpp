#pragma once

#include <chrono>
#include <vector>

#include <netinet/in.h>

#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/**
 * Wakes the claim service thread on world rank 0 the moment a message for it is sent.
 *
 * Open MPI (4.1, ob1) has no blocking receive: MPI_Wait and MPI_Improbe spin in its progress
 * engine, so a service thread that blocked in MPI would take a core from rank 0's tasks for
 * the whole job. Instead the service sleeps in the kernel (ppoll) on a UDP socket, and every
 * sender, right after its MPI message, rings it with a one-byte datagram; the service then
 * takes the message in with MPI. The datagram carries nothing the service needs: when one is
 * lost or a firewall drops them all, the service still finds the message when its timeout
 * ends, as before the doorbell (naps of 20 us to 1 ms).
 *
 * Rank 0 is rung on its loopback address from ranks that share it (same boot, same network
 * namespace), else on every other IPv4 address it has.
 */
class ClaimDoorbell {
public:
    /**
     * Collective over `world`. Rank 0 opens the socket and tells every rank its addresses.
     * @param enabled  false (SHARDRUN_CLAIM_DOORBELL=0): no socket; wait() only sleeps
     */
    ClaimDoorbell(Communicator& world, bool enabled);
    ~ClaimDoorbell();
    ClaimDoorbell(const ClaimDoorbell&) = delete;
    ClaimDoorbell& operator=(const ClaimDoorbell&) = delete;

    /** One datagram to rank 0's socket per address. Never blocks; thread-safe; a no-op when disabled. */
    void ring() noexcept;
    /**
     * Rank 0: takes in the rings waiting, else waits up to `timeout` for one (unread: the next call takes it).
     * @return true when rung (a message is on its way or has arrived), false on timeout
     */
    bool wait(std::chrono::nanoseconds timeout) noexcept;
    /** Rank 0: whether the service has a socket to wait on; others: whether they know where to ring. */
    bool enabled() const noexcept { return listen_fd_ >= 0 || !targets_.empty(); }

private:
    int listen_fd_ = -1;  // rank 0
    int send_fd_ = -1;
    std::vector<sockaddr_in> targets_;
};

}  // namespace shardrun::collectives
