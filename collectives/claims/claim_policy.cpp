#include "collectives/claims/claim_policy.hpp"

#include <algorithm>

namespace shardrun::collectives {

std::uint64_t refill_grant(std::int64_t node_claimers) noexcept
{
    return static_cast<std::uint64_t>(std::max<std::int64_t>(1, node_claimers));
}

}  // namespace shardrun::collectives
