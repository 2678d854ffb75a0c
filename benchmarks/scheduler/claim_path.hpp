#pragma once

#include <cstdint>
#include <vector>

#include "collectives/claims/claim_policy.hpp"
#include "scheduler_sim.hpp"

namespace shardrun::bench::scheduler {

/**
 * The claim service thread on world rank 0 (WorkCounters' serve()): answers refills one at a
 * time; while it has nothing to do it naps, each nap twice the last up to nap_max, and only
 * sees a request when a nap ends.
 */
class ClaimServiceModel {
public:
    explicit ClaimServiceModel(const ClaimCosts& costs) : costs_(costs) {}
    /** A refill request reaches rank 0 at `arrival`; returns when its answer leaves. */
    double answer(double arrival);
    double busy() const noexcept { return busy_; }

private:
    /** The first end of a nap at or after `arrival`, naps starting when the service went idle. */
    double wake_time(double arrival) const;
    ClaimCosts costs_;
    double idle_since_ = 0;
    double busy_ = 0;
};

/**
 * The way to a claim number (WorkCounters::next_claim): lock the node's pool, take the next
 * number, and when the pool is empty first refill it from the claim service with
 * refill_grant(claimers on the node) numbers, holding the lock for the round trip. With one
 * node the pool holds every number and there is no service. Requests reach the service in the
 * order take() is called (the simulation calls it in the order ranks ask).
 */
class ClaimPath {
public:
    /**
     * @param numbers  claim numbers with ids: as the runner's service (its grant()), no refill
     *                 grants past them, so the refill after the last says "used up" (0: unbounded)
     */
    ClaimPath(const Cluster& cluster, const ClaimCosts& costs, std::uint64_t numbers = 0);
    /**
     * Rank `rank` asks at time `t`; sets `number` and returns when the rank has it.
     * @param node_seconds_per_id  its node's claimers' mean time per id, as a refill tells the service (0: unknown)
     */
    double take(int rank, double t, std::uint64_t& number, double node_seconds_per_id = 0);
    /** A message to the service sent at `t` (a dry node's request, a node's answer): when the service has dealt with it. */
    double message(double t);
    /** message() past the service's queue: it only adds the service's work (for messages sent in the simulation's future). */
    double message_unqueued(double t);
    /** The service's answer leaves at `t`: when it arrives. */
    double reply(double t) const noexcept { return t + costs_.round_trip / 2; }
    /** How many numbers below `limit` node `rank`'s pool holds. */
    std::uint64_t pool_size(int rank, std::uint64_t limit) const;
    /** The next number of node `rank`'s pool, taken out without a refill (the pool must hold one). */
    std::uint64_t pop_pool(int rank);
    /** The claim numbers node `rank`'s pool still holds, taken out of it (the node is gone). */
    std::vector<std::uint64_t> drop_pool(int rank);
    /** Round trips: refills, and the messages of moves between nodes. */
    std::uint64_t refills() const noexcept { return refills_ + messages_; }
    double service_busy() const noexcept { return service_.busy(); }

private:
    struct Pool {
        std::uint64_t next = 0, end = 0;
        std::int64_t claimers = 1;
        double unlocked_at = 0;
    };
    ClaimCosts costs_;
    int ranks_per_node_;
    std::vector<Pool> pools_;
    ClaimServiceModel service_;
    collectives::NodeSpeeds speeds_;
    std::uint64_t numbers_ = 0;
    std::uint64_t next_grant_ = 0;
    std::uint64_t refills_ = 0;
    std::uint64_t messages_ = 0;
};

}  // namespace shardrun::bench::scheduler
