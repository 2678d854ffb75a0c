#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "collectives/claims/node_claims.hpp"
#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/** Job-wide task counts as world rank 0 sees them. */
struct ProgressCounts {
    std::int64_t ok = 0;
    std::int64_t failed = 0;
    std::int64_t running = 0;
    std::int64_t interrupted = 0;  ///< stopped by a signal: neither ok nor failed, left for --resume
};

/**
 * Job-wide outcomes, published the moment each one ends (FailureBudget's input), where
 * ProgressCounts are pushed in batches. Complete on world rank 0's node; another node sees its
 * own, and what it sent on.
 */
struct OutcomeTally {
    std::int64_t ok = 0;
    std::int64_t failed = 0;
    std::int64_t leading = 0;       ///< failures that ended before the first ok
    std::int32_t leading_code = 0;  ///< the code of the first of them
    bool one_code = true;           ///< every leading failure had leading_code
};

/**
 * Job-wide spend against a budget (issue 38, point 3), in the budget's integer unit (micro-dollars
 * or millijoules): what finished tasks spent, and what the running ones are expected to.
 * Complete on world rank 0's node, like OutcomeTally.
 */
struct SpendTally {
    std::int64_t spent = 0;
    std::int64_t running = 0;   ///< the expected spend of the tasks running now
    std::int64_t finished = 0;  ///< tasks whose spend is in `spent`
};

/**
 * How far a job has been asked to stop. Levels only rise.
 * drain: no rank takes a new task; running tasks may finish (SIGUSR1, a failure budget spent).
 * stop: running tasks are stopped too (SIGTERM, SIGINT, a drain that ran out of time).
 */
enum class StopLevel : std::int32_t { none = 0, drain = 1, stop = 2 };

/**
 * The dynamic schedule's claim counter and the job's progress counts, on any transport.
 *
 * Claims are numbers 0, 1, 2, ... handed out once each across the job. Every node keeps a
 * pool of claim numbers in node-local shared memory (one mutex-guarded take per claim, no
 * message). On one node the pool is unbounded; with several nodes an empty pool is refilled
 * from a claim service thread on world rank 0, with as many numbers as the node has
 * claimers, through two-sided messages; the service sleeps between messages and each sender
 * wakes it with a datagram (ClaimDoorbell). Nothing uses MPI one-sided windows, so it works
 * under every osc component (sm, ucx, rdma, pt2pt), and claims progress while rank 0 is busy
 * in a long task. Progress counts go to shared memory on rank 0's node and, from other
 * nodes, as messages to the service. Once the claim numbers are used up, a node that runs
 * dry gets unstarted ids of the node that will finish last, through the service
 * (node_moves.hpp, claim_moves.cpp).
 *
 * Construction and finish() are collective over `world`. Several nodes need a backend that
 * lets a background thread communicate (MPI_THREAD_MULTIPLE).
 */
class WorkCounters {
public:
    /**
     * @param world  every rank of the job
     * @param node  the members of world that share memory with this rank
     * @param claims  this rank takes claims (a group leader of the dynamic schedule)
     */
    WorkCounters(Communicator& world, Communicator& node, bool claims);
    ~WorkCounters();
    WorkCounters(const WorkCounters&) = delete;
    WorkCounters& operator=(const WorkCounters&) = delete;

    /** The next claim number. Thread-safe. */
    std::uint64_t next_claim();

    /** The ids claim number `n` covers; empty once the numbers are used up. Called with the node's lock held. */
    using ClaimBlocks = std::function<IdSpan(std::uint64_t number)>;
    /**
     * Claims up to `want` ids into this claimer's slot in node shared memory, when it is
     * empty: from the node's open claim block, else a fresh claim number's block (the
     * pool and its refills as next_claim()), else, once the numbers are used up, ids another
     * claimer of this node claimed and has not started (fill_slot), else, with several nodes,
     * ids of the node that will finish last, through the claim service (node_moves.hpp). Thread-safe.
     * @param seconds_per_id  this claimer's measured time per id (0: none yet), which claimers that run dry read
     * @return the ids in the slot (0: this node has none left for it)
     */
    std::uint64_t claim_ids(std::uint64_t want, double seconds_per_id, const ClaimBlocks& block_of);
    /** Starts the next id of this claimer's slot; nullopt when it is empty. Thread-safe. */
    std::optional<std::uint64_t> take_id();
    /** Empties this claimer's slot and returns the ids in it, none started (a rank that stops early gives them back). */
    IdSpan release_ids();
    /**
     * Answers the claim service's asks for ids from dry nodes that reached this claimer
     * (node_moves.hpp): take_id(), claim_ids() and stop_level() call it too. Never blocks.
     */
    void answer_asks();
    /**
     * This claimer claims no more: with several nodes, tells the claim service so and answers
     * its asks until it acknowledges. Call when the rank's loop ends; finish() calls it too.
     */
    void stop_claiming();
    /**
     * How many claim numbers have ids (ClaimBlocks gives an empty span from this one on), so
     * that the claim service grants none past them: the refill that finds them used up also
     * tells whether any node holds ids worth moving. 0 (the default): not known.
     */
    void set_claim_numbers(std::uint64_t numbers);
    /** Ids this claimer got from other nodes. */
    std::uint64_t moved_in() const;
    /** Ids this node's claimers took back from one another's slots. */
    std::uint64_t taken_back() const;
    /** Adds to the job-wide progress counts. Thread-safe. */
    void add_progress(const ProgressCounts& delta);
    /** The job-wide counts; complete on world rank 0 (other ranks see their node's share). */
    ProgressCounts read_progress() const;
    /**
     * Adds one outcome (ok, or failed with `code`) to the job-wide tally at once: node shared
     * memory, and from another node one message to the claim service. Thread-safe.
     * @return the tally as this node sees it, this outcome included
     */
    OutcomeTally add_outcome(bool ok, std::int32_t code);
    /** The tally as this node sees it (see OutcomeTally); a few atomic loads. */
    OutcomeTally read_outcomes() const;
    /**
     * Adds to the job-wide spend tally at once (node shared memory; from another node, one message
     * to the claim service). Thread-safe.
     * @return the tally as this node sees it, the change included
     */
    SpendTally add_spend(const SpendTally& delta);
    /** The tally as this node sees it (see SpendTally); a few atomic loads. */
    SpendTally read_spend() const;
    /** Refills this node's pool asked for so far (0 on one node). */
    std::uint64_t refills() const;
    /**
     * Asks every rank of the job to drain or stop (a signal reached this one): a level in node
     * shared memory, and with several nodes a message to the claim service, which tells every
     * rank. Thread-safe; a level at or below the current one is ignored.
     */
    void request_stop(StopLevel level);
    /** The highest level any rank asked for. Never blocks; with several nodes it may take a message in. */
    StopLevel stop_level();
    /** Ends the claim service once every rank is done with it. Collective; idempotent. */
    void finish();

private:
    struct State;
    std::shared_ptr<State> state_;
};

}  // namespace shardrun::collectives
