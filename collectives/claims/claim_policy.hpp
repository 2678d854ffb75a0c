#pragma once

#include <cstdint>
#include <vector>

namespace shardrun::collectives {

/**
 * How many claim numbers one refill of a node's pool takes from the claim service: one per
 * claimer on the node, so a refill costs each claimer about one round trip's share and no
 * node hoards numbers the others could take; fewer, in proportion, for a node whose claimers
 * are slower than the job's mean (a throttled node, a shared GPU), so that what a node holds
 * unstarted is worth about the same time on every node. Nodes within 2 x of the mean get one
 * per claimer, as before issue 25. A pure function, so the scheduler simulation (benchmarks/scheduler) runs
 * the same policy as WorkCounters.
 * @param node_claimers  claimers (dynamic group leaders) on the node; may be 0
 * @param node_seconds_per_id  the node's claimers' mean measured time per id; 0 = not known yet
 * @param job_seconds_per_id  the same, averaged over the job's claimers (NodeSpeeds); 0 = not known yet
 * @return at least 1
 */
std::uint64_t refill_grant(std::int64_t node_claimers, double node_seconds_per_id = 0,
                           double job_seconds_per_id = 0) noexcept;

/** The claim service's view of each node's speed, as the nodes' refill requests tell it. */
class NodeSpeeds {
public:
    /** Node `node` (any index, e.g. the requesting rank) with `claimers` claimers measures `seconds_per_id` (0: not yet). */
    void note(int node, std::int64_t claimers, double seconds_per_id);
    /** The claimer-weighted mean time per id over the nodes heard from; 0 when none measured yet. */
    double mean_seconds_per_id() const noexcept;

private:
    struct Entry {
        double claimers = 0, seconds_per_id = 0;
    };
    std::vector<Entry> nodes_;
    double weighted_ = 0, claimers_ = 0;  // sums over the nodes with a measurement
};

}  // namespace shardrun::collectives
