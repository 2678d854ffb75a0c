#include "scheduler_sim.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "adaptive_sim.hpp"
#include "claim_path.hpp"
#include "runner/placement/placement.hpp"

namespace shardrun::bench::scheduler {
namespace {

using Ready = std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>>;

// The first id of every claim, then T: claim n covers [starts[n], starts[n + 1]). Built once
// by the runner's own ClaimSequence, because pools hand numbers out of order across nodes.
std::vector<std::uint64_t> claim_starts(std::uint64_t tasks, int groups, const Schedule& schedule)
{
    placement::ClaimSequence sequence({0, tasks}, groups, schedule.min_claim, schedule.max_claim);
    std::vector<std::uint64_t> starts;
    for (std::uint64_t n = 0;; ++n) {
        const auto batch = sequence.claim(n);
        if (batch.count == 0) break;
        starts.push_back(batch.first);
    }
    starts.push_back(tasks);
    return starts;
}

SimResult simulate_static(const TaskDurations& durations, const Cluster& cluster, const Schedule& schedule,
                          const ClaimCosts& costs)
{
    SimResult result;
    const placement::IdRange all{0, durations.size()};
    for (int g = 0; g < cluster.ranks; ++g) {
        const auto share = schedule.policy == Policy::block ? placement::block_share(all, g, cluster.ranks)
                                                            : placement::cyclic_share(all, g, cluster.ranks);
        double load = 0;
        if (share.stride == 1) {
            load = durations.sum(share.first, share.count);
        } else {
            for (std::uint64_t k = 0; k < share.count; ++k) load += durations.at(share.id(k));
        }
        result.busy += load;
        result.tasks += share.count;
        result.wall = std::max(result.wall, load * cluster.slowdown_of(g) + static_cast<double>(share.count) * costs.per_task);
    }
    return result;
}

SimResult simulate_dynamic(const TaskDurations& durations, const Cluster& cluster, const Schedule& schedule,
                           const ClaimCosts& costs)
{
    const auto starts = claim_starts(durations.size(), cluster.ranks, schedule);
    const std::uint64_t claims = starts.size() - 1;
    ClaimPath path(cluster, costs);
    Ready ready;
    for (int r = 0; r < cluster.ranks; ++r) ready.emplace(0.0, r);
    SimResult result;
    while (!ready.empty()) {
        const auto [t, rank] = ready.top();
        ready.pop();
        std::uint64_t number = 0;
        const double at = path.take(rank, t, number);
        if (number >= claims) {  // the rank learns there is no more work and stops
            result.wall = std::max(result.wall, at);
            continue;
        }
        const auto first = starts[number], count = starts[number + 1] - first;
        result.tasks += count;
        ++result.claims;
        result.busy += durations.sum(first, count);
        ready.emplace(at + durations.sum(first, count) * cluster.slowdown_of(rank) + static_cast<double>(count) * costs.per_task,
                      rank);
    }
    result.refills = path.refills();
    result.service_busy = path.service_busy();
    const auto tail = std::min<std::uint64_t>(claims, static_cast<std::uint64_t>(cluster.ranks));
    if (tail > 0) result.last_claim_tasks = static_cast<double>(durations.size() - starts[claims - tail]) / static_cast<double>(tail);
    return result;
}

}  // namespace

double Cluster::capacity() const
{
    if (slowdown.empty()) return ranks;
    double sum = 0;
    for (const double s : slowdown) sum += 1.0 / s;
    return sum;
}

std::vector<double> rank_slowdowns(int ranks, int ranks_per_node, double slow_node, double sigma, std::uint64_t seed)
{
    // The duration law's counter-based normal draws, one per rank (median 1, no cap).
    const DurationLaw factor{DurationLaw::Kind::lognormal, 1.0, sigma, 0.0, seed};
    std::vector<double> slowdown(static_cast<std::size_t>(ranks), 1.0);
    for (int r = 0; r < ranks; ++r) {
        auto& s = slowdown[static_cast<std::size_t>(r)];
        if (sigma > 0) s = factor.draw(static_cast<std::uint64_t>(r));
        if (r < ranks_per_node) s *= slow_node;
    }
    return slowdown;
}

SimResult simulate(const TaskDurations& durations, const Cluster& cluster, const Schedule& schedule,
                   const ClaimCosts& costs)
{
    SimResult result;
    if (schedule.policy != Policy::dynamic) {
        result = simulate_static(durations, cluster, schedule, costs);
    } else {
        result = schedule.adaptive ? simulate_adaptive(durations, cluster, schedule, costs,
                                                       claim_starts(durations.size(), cluster.ranks, schedule))
                                   : simulate_dynamic(durations, cluster, schedule, costs);
    }
    result.capacity = cluster.capacity();
    return result;
}

double simulate_claim_loop(const Cluster& cluster, std::uint64_t claims_per_rank, const ClaimCosts& costs)
{
    if (claims_per_rank == 0 || cluster.ranks < 1) return 0.0;
    ClaimPath path(cluster, costs);
    Ready ready;
    std::vector<std::uint64_t> left(static_cast<std::size_t>(cluster.ranks), claims_per_rank);
    for (int r = 0; r < cluster.ranks; ++r) ready.emplace(0.0, r);
    double wall = 0;
    while (!ready.empty()) {
        const auto [t, rank] = ready.top();
        ready.pop();
        std::uint64_t number = 0;
        const double at = path.take(rank, t, number);
        wall = std::max(wall, at);
        if (--left[static_cast<std::size_t>(rank)] > 0) ready.emplace(at, rank);
    }
    return wall > 0 ? static_cast<double>(claims_per_rank) * cluster.ranks / wall : 0.0;
}

}  // namespace shardrun::bench::scheduler
