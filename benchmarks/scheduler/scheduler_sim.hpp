#pragma once

#include <cstdint>
#include <vector>

#include "task_durations.hpp"

namespace shardrun::bench::scheduler {

/** What claiming work costs, in seconds (see benchmarks/README.md for where each comes from). */
struct ClaimCosts {
    double local_take = 0;  ///< one take from the node's pool in shared memory (its mutex held)
    double round_trip = 0;  ///< network latency of a refill: request there plus reply back
    double service = 0;     ///< the claim service thread's work per refill (rank 0, one at a time)
    double nap_min = 0;     ///< the idle service's first poll nap; 0 = it answers at once
    double nap_max = 0;     ///< its longest nap (naps double up to this)
    double nap_overshoot = 0;  ///< how much longer than asked each nap sleeps
    double per_task = 0;    ///< the rank loop's own cost per task (id, record)
    double answer_poll = 0; ///< a node asked for ids answers within this (its watcher's tick) or at its next task start
    double dead_after = 0;  ///< the service gives a node up after this long without a word from it
};

/** R ranks, every one a claimer (a group of one), ranks_per_node consecutive ranks a node. */
struct Cluster {
    int ranks = 1;
    int ranks_per_node = 1;  ///< >= ranks: one node, its pool unbounded, no claim service
    std::vector<double> slowdown;  ///< per rank: its tasks take this x their duration; empty = all 1
    int dead_node = -1;   ///< this node stops answering (and running) at dead_at; -1: none
    double dead_at = 0;

    double slowdown_of(int rank) const { return slowdown.empty() ? 1.0 : slowdown[static_cast<std::size_t>(rank)]; }
    /** Ranks' worth of speed: the sum of 1 / slowdown (R when every rank is alike). */
    double capacity() const;
};

/**
 * Per-rank slowdowns: node 0's ranks `slow_node` x slower (1: none), times a log-normal factor
 * of median 1 and log-sigma `sigma` per rank (0: none), drawn from `seed`.
 */
std::vector<double> rank_slowdowns(int ranks, int ranks_per_node, double slow_node, double sigma, std::uint64_t seed);

enum class Policy { block, cyclic, dynamic };

/** A `schedule:` of the job file. */
struct Schedule {
    Policy policy = Policy::dynamic;
    std::uint64_t min_claim = 1;
    std::uint64_t max_claim = 0;  ///< 0 = no cap
    /**
     * The runner's claims since issue 25: each claim takes placement::adaptive_claim() ids
     * (span seconds of the claimant's measured work) out of the claim blocks, and a rank that
     * runs dry takes ids back from its node's slots (collectives::fill_slot). false: a claim
     * is a whole block (before).
     */
    bool adaptive = false;
    double span = 0.1;
    /** Adaptive: a node that runs dry takes ids from the node that will finish last (issue 36). false: before. */
    bool across_nodes = true;
};

struct SimResult {
    double wall = 0;   ///< seconds until the last rank knows there is no more work
    double busy = 0;   ///< summed task seconds at speed 1 (the work, whoever ran it)
    double capacity = 0;  ///< Cluster::capacity()
    std::uint64_t tasks = 0;    ///< tasks run (each id once)
    std::uint64_t claims = 0;   ///< non-empty claims
    std::uint64_t refills = 0;  ///< round trips of claim messages: pool refills, dry nodes' requests, the service's asks
    double service_busy = 0;    ///< seconds the claim service worked
    double last_claim_tasks = 0;  ///< mean tasks per claim over the last R claims (the tail)
    std::uint64_t taken_back = 0;  ///< ids ranks took back from another's slot (adaptive)
    std::uint64_t moves = 0;       ///< spans of ids a dry node got from another node or a dead one's
    std::uint64_t moved = 0;       ///< ids in those spans (from live nodes)
    std::uint64_t asks = 0;        ///< asks the service sent to a node for ids
    std::uint64_t rerun = 0;       ///< ids a dead node held or ran that other nodes ran
    /** busy / (capacity x wall): 1 when every rank's speed is used to the end. */
    double efficiency(int ranks) const { return busy / ((capacity > 0 ? capacity : ranks) * wall); }
};

/**
 * Runs one schedule: static ones as each rank's share of ids back to back, the dynamic one
 * as a discrete-event simulation (ranks ordered by the time they next claim) of the real
 * claim path: WorkCounters' node pools refilled by refill_grant() numbers from one claim
 * service, numbers turned into ids by placement::ClaimSequence.
 */
SimResult simulate(const TaskDurations& durations, const Cluster& cluster, const Schedule& schedule,
                   const ClaimCosts& costs);

/**
 * A tight loop of `claims_per_rank` claims on every rank, with no tasks, as claims_bench's
 * first part runs it: returns claims per second in total (to compare with the measured rate).
 */
double simulate_claim_loop(const Cluster& cluster, std::uint64_t claims_per_rank, const ClaimCosts& costs);

}  // namespace shardrun::bench::scheduler
