#include "claim_path.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "collectives/claims/claim_policy.hpp"

namespace shardrun::bench::scheduler {

double ClaimServiceModel::wake_time(double arrival) const
{
    if (costs_.nap_min <= 0) return arrival;
    double wake = idle_since_;
    double nap = costs_.nap_min;
    while (wake < arrival && nap < costs_.nap_max) {
        wake += nap + costs_.nap_overshoot;
        nap = std::min(2 * nap, costs_.nap_max);
    }
    if (wake >= arrival) return wake;
    // Naps have reached nap_max: jump over whole ones instead of stepping through hours of them.
    const double step = costs_.nap_max + costs_.nap_overshoot;
    return wake + std::ceil((arrival - wake) / step) * step;
}

double ClaimServiceModel::answer(double arrival)
{
    // A request already waiting when the last answer leaves is taken at once (its test() succeeds).
    const double start = arrival <= idle_since_ ? idle_since_ : wake_time(arrival);
    idle_since_ = start + costs_.service;
    busy_ += costs_.service;
    return idle_since_;
}

ClaimPath::ClaimPath(const Cluster& cluster, const ClaimCosts& costs, std::uint64_t numbers)
    : costs_(costs), ranks_per_node_(std::max(1, cluster.ranks_per_node)), service_(costs), numbers_(numbers)
{
    const int nodes = (cluster.ranks + ranks_per_node_ - 1) / ranks_per_node_;
    pools_.resize(static_cast<std::size_t>(std::max(1, nodes)));
    for (int n = 0; n < nodes; ++n) {
        const int claimers = std::min(ranks_per_node_, cluster.ranks - n * ranks_per_node_);
        pools_[static_cast<std::size_t>(n)].claimers = claimers;
    }
    if (nodes <= 1) pools_[0].end = std::numeric_limits<std::uint64_t>::max();
}

double ClaimPath::take(int rank, double t, std::uint64_t& number, double node_seconds_per_id)
{
    const int node = rank / ranks_per_node_;
    auto& pool = pools_[static_cast<std::size_t>(node)];
    double at = std::max(t, pool.unlocked_at);
    if (pool.next >= pool.end) {
        const double answered = service_.answer(at + costs_.round_trip / 2);
        at = answered + costs_.round_trip / 2;
        speeds_.note(node, pool.claimers, node_seconds_per_id);
        auto grant = collectives::refill_grant(pool.claimers, node_seconds_per_id, speeds_.mean_seconds_per_id());
        if (numbers_ > 0) grant = std::min<std::uint64_t>(grant, numbers_ > next_grant_ ? numbers_ - next_grant_ : 0);
        pool.next = next_grant_;
        pool.end = next_grant_ + grant;
        next_grant_ += grant;
        ++refills_;
    }
    number = pool.next++;
    at += costs_.local_take;
    pool.unlocked_at = at;
    return at;
}

double ClaimPath::message(double t)
{
    ++messages_;
    return service_.answer(t + costs_.round_trip / 2);
}

double ClaimPath::message_unqueued(double t)
{
    ++messages_;
    return t + costs_.round_trip / 2 + costs_.service;
}

std::uint64_t ClaimPath::pool_size(int rank, std::uint64_t limit) const
{
    const auto& pool = pools_[static_cast<std::size_t>(rank / ranks_per_node_)];
    const auto end = std::min(pool.end, limit);
    return end > pool.next ? end - pool.next : 0;
}

std::uint64_t ClaimPath::pop_pool(int rank) { return pools_[static_cast<std::size_t>(rank / ranks_per_node_)].next++; }

std::vector<std::uint64_t> ClaimPath::drop_pool(int rank)
{
    auto& pool = pools_[static_cast<std::size_t>(rank / ranks_per_node_)];
    std::vector<std::uint64_t> numbers;
    for (; pool.next < pool.end; ++pool.next) numbers.push_back(pool.next);
    return numbers;
}

}  // namespace shardrun::bench::scheduler
