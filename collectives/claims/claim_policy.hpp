#pragma once

#include <cstdint>

namespace shardrun::collectives {

/**
 * How many claim numbers one refill of a node's pool takes from the claim service: one per
 * claimer on the node, so a refill costs each claimer about one round trip's share and no
 * node hoards numbers the others could take. A pure function, so the scheduler simulation
 * (benchmarks/scheduler) runs the same policy as WorkCounters.
 * @param node_claimers  claimers (dynamic group leaders) on the node; may be 0
 * @return at least 1
 */
std::uint64_t refill_grant(std::int64_t node_claimers) noexcept;

}  // namespace shardrun::collectives
