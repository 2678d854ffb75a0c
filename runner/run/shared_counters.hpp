#pragma once

#include <cstdint>

namespace shardrun::run {

/** Job-wide counts as rank 0 sees them. */
struct ProgressCounts {
    std::int64_t ok = 0;
    std::int64_t failed = 0;
    std::int64_t running = 0;
};

/**
 * Counters that live in an MPI window on rank 0: the dynamic schedule's claim counter and
 * the progress counts every rank adds to. One passive-target epoch spans the whole run, so
 * a claim is one MPI_Fetch_and_op (a plain atomic with shared-memory windows on one node).
 * Construction and destruction are collective over MPI_COMM_WORLD.
 */
class SharedCounters {
public:
    SharedCounters();
    ~SharedCounters();
    SharedCounters(const SharedCounters&) = delete;
    SharedCounters& operator=(const SharedCounters&) = delete;

    /** The next claim number (0, 1, 2, ... across all ranks). */
    std::uint64_t next_claim();
    /** Adds to the job-wide progress counts. */
    void add_progress(const ProgressCounts& delta);
    /** Reads the job-wide progress counts (any rank; rank 0 renders them). */
    ProgressCounts read_progress();
    /** Lets MPI make progress on requests that target this rank (see DESIGN.md pitfalls). */
    void poll();

private:
    void* window_ = nullptr;  // MPI_Win, kept opaque so this header stays MPI-free
    std::int64_t* base_ = nullptr;
};

}  // namespace shardrun::run
