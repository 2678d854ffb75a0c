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
#include <vector>

#include "collectives/claims/burst_window.hpp"
#include "collectives/claims/claim_doorbell.hpp"
#include "collectives/claims/claim_policy.hpp"
#include "collectives/claims/node_claims.hpp"
#include "collectives/claims/node_moves.hpp"
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
    bool no_moves;  ///< the service found no node with ids worth moving here: this node's claimers are done (under lock)
    NodeIds ids;  ///< claimed ids no slot holds yet (under lock); the claimers' slots follow this struct
};

enum MessageKind : std::int64_t {
    refill_kind = 1, progress_kind = 2, final_kind = 3, stop_kind = 4, outcome_kind = 5,
    move_kind = 6,   ///< a dry node asks for ids: claimers, ns per id
    given_kind = 7,  ///< a node's answer to an ask: thief rank, first id, count, unstarted left, ns per id, pool numbers
    done_kind = 8,   ///< this claimer claims no more (the service then asks it nothing and acknowledges)
    spend_kind = 9,  ///< a node's spend since its last message (spend_tally.cpp)
};
/** A load as a message carries it (claim_moves.cpp). */
NodeLoad load_of(std::int64_t unstarted, std::int64_t ns_per_id, std::int64_t claimers, std::int64_t pool_numbers);

enum AskKind : std::int64_t { ask_kind = 1, ack_kind = 2 };
constexpr std::int32_t no_code = std::numeric_limits<std::int32_t>::min();
constexpr int service_tag = 71;
constexpr int reply_tag = 72;
constexpr int stop_tag = 73;
constexpr int ask_tag = 74;  // service to a claimer: asks for ids (ask_kind) and the answer to its done (ack_kind)
using Message = std::array<std::int64_t, 9>;  // kind, sender, seven values
using Ask = std::array<std::int64_t, 4>;      // kind, thief rank, thief's claimers, thief's ns per id
// A refill's answer: first claim number, count, whether a dry node should ask for moved ids
// (node_moves.hpp), and the service's burst window (ns) then.
using Reply = std::array<std::int64_t, 4>;

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
    std::chrono::nanoseconds service_window{BurstWindow::shortest};  // as its last answer said (ditto)
    std::int64_t grant_size = 1;  // the node's claimers (at least 1): what a refill asks for at most
    // World rank 0 only: the claim service.
    std::mutex grant_mutex;
    std::uint64_t next_grant = 0;
    std::uint64_t numbers = 0;  // claim numbers there are (0: not known); a node's refill tells the service
    std::thread thread;
    std::atomic<bool> abandon{false};
    bool finished = false;
    std::mutex stop_mutex;  // one thread of a rank at a time sends or takes stop messages
    std::int32_t stop_sent = 0;   // the highest level this rank told the service
    std::int32_t stop_told = 0;   // rank 0: the highest level the service told every rank

    NodeSpeeds speeds;  // under grant_mutex

    // Moves of ids between nodes (node_moves.hpp; claim_moves.cpp).
    int node_id = 0;              // this node's lowest world rank
    std::uint64_t claim_numbers = 0;  // claim numbers with ids (0: not known), as set_claim_numbers() told
    WorkCounters::ClaimBlocks block_of;  // this rank's, from its last claim_ids() (under the node's lock)
    /** Claim numbers the node's pool holds that have ids (node lock held). */
    std::uint64_t pool_numbers() const;
    /** The node's load, its pool included (node lock held). */
    NodeLoad load() const { return node_load(shared->ids, slots, pool_numbers()); }
    std::mutex ask_mutex;         // one thread of a rank at a time takes asks in (ask_tag)
    bool done_sent = false;       // under ask_mutex
    std::atomic<std::uint64_t> moved_in{0};  // ids this rank got from other nodes
    // World rank 0 only, the service thread's:
    struct NodeEntry {
        std::vector<int> active;  // its claimers that have not sent done
        NodeLoad load;            // as last reported
        bool known = false;       // false: not reported since its last refill (worth asking)
    };
    std::vector<NodeEntry> nodes;     // by node id
    std::vector<int> node_of_rank;    // world rank -> node id
    struct PendingMove {
        int thief = -1;
        std::int64_t claimers = 1;
        std::int64_t ns_per_id = 0;
        std::vector<int> tried;  // nodes asked already
    };
    std::vector<PendingMove> pending;  // dry nodes' requests waiting for an answer

    /** Service: a dry node's request; asks the node that will finish last, or answers none. */
    void start_move(PendingMove move);
    /** Service: a node answered an ask. */
    void take_given(const Message& message);
    /** Service: a claimer claims no more. */
    void take_done(int sender);
    /** Service: whether a dry node of `sender` with `ns_per_id` finds a node worth asking for ids. */
    bool moves_worth_asking(int sender, std::int64_t ns_per_id) const;
    /** Service: the latest load of its own node (read when its lock is free). */
    void note_own_node();
    /** Claimer: answers the asks that came (ask_mutex held). @return an ack came */
    bool answer_asks_locked();
    /** Claimer: its node is dry; asks the service for ids and puts them into its slot. @return ids got */
    std::uint64_t move_ids();
    /** Claimer: tells the service it claims no more and waits for its ack, answering asks meanwhile. */
    void stop_claiming();

    /** Claim numbers for a node of `claimers` whose claimers take `seconds_per_id` (refill_grant()). */
    std::pair<std::uint64_t, std::uint64_t> grant(int node, std::int64_t claimers, double seconds_per_id,
                                                  std::uint64_t numbers = 0);
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
