#pragma once

// @internal What WorkCounters (work_counters.cpp) and its claim service (claim_service.cpp) share.

#include <pthread.h>

#include <array>
#include <limits>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <utility>

#include "collectives/claims/claim_doorbell.hpp"
#include "collectives/claims/claim_policy.hpp"
#include "collectives/claims/node_claims.hpp"
#include "collectives/claims/node_segment.hpp"
#include "collectives/claims/work_counters.hpp"

namespace shardrun::collectives {

/** What the members of one node share. */
struct NodeShared {
    pthread_mutex_t lock;
    std::uint64_t next;  ///< next claim number of the pool (under lock)
    std::uint64_t end;   ///< end of the pool (under lock)
    std::uint64_t refills;
    std::atomic<std::int64_t> ok, failed, running, interrupted;
    std::atomic<std::int32_t> stop;  ///< a StopLevel
    // OutcomeTally's fields; leading_code holds no_code until the first leading failure.
    std::atomic<std::int64_t> outcome_ok, outcome_failed, outcome_leading;
    std::atomic<std::int32_t> leading_code, mixed_codes;
    std::atomic<std::int64_t> spend_spent, spend_running, spend_finished;  ///< SpendTally's fields
    NodeIds ids;  ///< claimed ids no slot holds yet (under lock); the claimers' slots follow this struct
};

enum MessageKind : std::int64_t { refill_kind = 1, progress_kind = 2, final_kind = 3, stop_kind = 4, outcome_kind = 5, spend_kind = 6 };
constexpr std::int32_t no_code = std::numeric_limits<std::int32_t>::min();
constexpr int service_tag = 71;
constexpr int reply_tag = 72;
constexpr int stop_tag = 73;
using Message = std::array<std::int64_t, 6>;  // kind, sender, four values
// How long the service keeps looking for the next message after one (about a wake-up's cost).
constexpr std::chrono::microseconds claim_burst_window{20};

// Raises `level` to at least `wanted`; levels never fall.
inline void raise_level(std::atomic<std::int32_t>& level, std::int32_t wanted)
{
    auto current = level.load();
    while (current < wanted && !level.compare_exchange_weak(current, wanted)) {
    }
}

/** Holds the node's process-shared mutex for a scope (pthread's, which std::lock_guard cannot take). */
class SharedMutexGuard {
public:
    explicit SharedMutexGuard(pthread_mutex_t& mutex) : mutex_(mutex) { pthread_mutex_lock(&mutex_); }
    ~SharedMutexGuard() { pthread_mutex_unlock(&mutex_); }
    SharedMutexGuard(const SharedMutexGuard&) = delete;
    SharedMutexGuard& operator=(const SharedMutexGuard&) = delete;

private:
    pthread_mutex_t& mutex_;
};


struct WorkCounters::State {
    std::unique_ptr<Communicator> service;  // private copy of world: no other traffic matches its tags
    std::unique_ptr<ClaimDoorbell> doorbell;  // several nodes: wakes the service after each message to it
    std::unique_ptr<NodeSegment> segment;
    NodeShared* shared = nullptr;
    std::span<ClaimSlot> slots;  // every claimer's of this node, after NodeShared in the segment
    int my_slot = -1;            // this rank's, when it claims
    bool several_nodes = false;
    bool on_service_node = false;  // progress goes straight to shared memory
    std::chrono::steady_clock::time_point last_reply;  // of this rank's last refill (under the node's lock)
    std::int64_t grant_size = 1;  // the node's claimers (at least 1): what a refill asks for at most
    // World rank 0 only: the claim service.
    std::mutex grant_mutex;
    std::uint64_t next_grant = 0;
    std::thread thread;
    std::atomic<bool> abandon{false};
    bool finished = false;
    std::mutex stop_mutex;  // one thread of a rank at a time sends or takes stop messages
    std::int32_t stop_sent = 0;   // the highest level this rank told the service
    std::int32_t stop_told = 0;   // rank 0: the highest level the service told every rank

    NodeSpeeds speeds;  // under grant_mutex

    /** Claim numbers for a node of `claimers` whose claimers take `seconds_per_id` (refill_grant()). */
    std::pair<std::uint64_t, std::uint64_t> grant(int node, std::int64_t claimers, double seconds_per_id);
    /** The node's claimers' mean measured time per id (0 when none has one), with the node's lock held. */
    double node_seconds_per_id() const;
    void add_shared(const ProgressCounts& delta);
    /** Adds one outcome to this node's tally (outcome_tally.cpp). */
    void add_outcome_shared(bool ok, std::int32_t code);
    /** Adds to this node's spend tally (spend_tally.cpp). */
    void add_spend_shared(const SpendTally& delta);
    /** A pool runs dry: take the next grant of claim numbers for this node (node lock held). */
    void refill();
    /** Rank 0: one notice per level a rank asked for, to every other rank. */
    void tell_stop();
    /** Sends `message` to the service and, with `ring`, wakes it. */
    void tell_service(const Message& message, bool ring = true);
    /** Rank 0's service thread: answers refills, takes progress, stop and final messages. */
    void serve();
};

}  // namespace shardrun::collectives
