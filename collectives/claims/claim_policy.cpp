#include "collectives/claims/claim_policy.hpp"

#include <algorithm>
#include <cmath>

namespace shardrun::collectives {

std::uint64_t refill_grant(std::int64_t node_claimers, double node_seconds_per_id, double job_seconds_per_id) noexcept
{
    const auto claimers = std::max<std::int64_t>(1, node_claimers);
    if (node_seconds_per_id <= 0 || job_seconds_per_id <= 0) return static_cast<std::uint64_t>(claimers);
    // Never more than one per claimer: a fast node refills more often instead of holding more.
    const double share = static_cast<double>(claimers) * job_seconds_per_id / node_seconds_per_id;
    // Nodes within 2 x of the mean are alike: chance spread in task times must not cost refills.
    if (share >= static_cast<double>(claimers) / 2) return static_cast<std::uint64_t>(claimers);
    return static_cast<std::uint64_t>(std::clamp<std::int64_t>(std::llround(share), 1, claimers));
}

void NodeSpeeds::note(int node, std::int64_t claimers, double seconds_per_id)
{
    if (node < 0) return;
    if (static_cast<std::size_t>(node) >= nodes_.size()) nodes_.resize(static_cast<std::size_t>(node) + 1);
    auto& entry = nodes_[static_cast<std::size_t>(node)];
    if (entry.seconds_per_id > 0) {
        weighted_ -= entry.claimers * entry.seconds_per_id;
        claimers_ -= entry.claimers;
    }
    entry = {static_cast<double>(std::max<std::int64_t>(claimers, 1)), std::max(seconds_per_id, 0.0)};
    if (entry.seconds_per_id > 0) {
        weighted_ += entry.claimers * entry.seconds_per_id;
        claimers_ += entry.claimers;
    }
}

double NodeSpeeds::mean_seconds_per_id() const noexcept { return claimers_ > 0 ? std::max(weighted_ / claimers_, 0.0) : 0.0; }

}  // namespace shardrun::collectives
