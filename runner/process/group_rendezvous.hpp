#pragma once

#include <string>
#include <vector>

#include "collectives/communicator.hpp"

namespace shardrun::process {

/** Where the members of one exec task meet: torchrun's MASTER_ADDR and MASTER_PORT. */
struct Rendezvous {
    std::string host;
    int port = 0;
};

/**
 * The leader's host and a TCP port that was free on it a moment ago; every member learns
 * both. Collective over `group` (or local when `group` is nullptr).
 */
Rendezvous agree_rendezvous(collectives::Communicator* group, const std::string& leader_host);

/**
 * How the programs of one task's members ended. Each member tells every other member its
 * program's exit code as soon as it ends, so a member still running learns of a failure and
 * stops its own program instead of waiting (e.g. in a rendezvous) for one that is gone.
 * Messages only: the members need not be in a collective while their programs run.
 */
class PeerExits {
public:
    /** Posts a receive for every other member's exit code. */
    explicit PeerExits(collectives::Communicator& group);
    /** Calls finish(1) when finish() was not called, so no message is left unmatched. */
    ~PeerExits();
    PeerExits(const PeerExits&) = delete;
    PeerExits& operator=(const PeerExits&) = delete;

    /** The lowest member whose program failed, from what arrived so far; -1 if none. Never blocks. */
    int failed_peer();
    /** Sends this member's exit code to every other member and waits for all of theirs. Once. */
    void finish(int exit_code);
    /** Every member's exit code, after finish(). */
    const std::vector<std::int32_t>& codes() const noexcept { return codes_; }

private:
    collectives::Communicator& group_;
    std::vector<std::int32_t> codes_;
    std::vector<collectives::Request> receives_;
    std::vector<bool> arrived_;
    bool finished_ = false;
};

}  // namespace shardrun::process
