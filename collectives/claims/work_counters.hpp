#pragma once

#include <cstdint>
#include <memory>

#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/** Job-wide task counts as world rank 0 sees them. */
struct ProgressCounts {
    std::int64_t ok = 0;
    std::int64_t failed = 0;
    std::int64_t running = 0;
};

/**
 * The dynamic schedule's claim counter and the job's progress counts, on any transport.
 *
 * Claims are numbers 0, 1, 2, ... handed out once each across the job. Every node keeps a
 * pool of claim numbers in node-local shared memory (one mutex-guarded take per claim, no
 * message). On one node the pool is unbounded; with several nodes an empty pool is refilled
 * from a claim service thread on world rank 0, with as many numbers as the node has
 * claimers, through two-sided messages. Nothing uses MPI one-sided windows, so it works
 * under every osc component (sm, ucx, rdma, pt2pt), and claims progress while rank 0 is busy
 * in a long task. Progress counts go to shared memory on rank 0's node and, from other
 * nodes, as messages to the service.
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
    /** Adds to the job-wide progress counts. Thread-safe. */
    void add_progress(const ProgressCounts& delta);
    /** The job-wide counts; complete on world rank 0 (other ranks see their node's share). */
    ProgressCounts read_progress() const;
    /** Refills this node's pool asked for so far (0 on one node). */
    std::uint64_t refills() const;
    /**
     * Asks every rank of the job to stop (a signal reached this one): a flag in node shared
     * memory, and with several nodes a message to the claim service, which tells every rank.
     * Thread-safe; repeated calls are harmless.
     */
    void request_stop();
    /** True once any rank asked to stop. Never blocks; with several nodes it may take a message in. */
    bool stop_requested();
    /**
     * Asks every rank to take no new task and let running ones finish (the job gave up on its
     * failures): carried like request_stop(), on its own flag. Thread-safe; repeated calls are harmless.
     */
    void request_drain();
    /** True once any rank asked to drain. Never blocks. */
    bool drain_requested();
    /** Ends the claim service once every rank is done with it. Collective; idempotent. */
    void finish();

private:
    struct State;
    std::shared_ptr<State> state_;
};

}  // namespace shardrun::collectives
