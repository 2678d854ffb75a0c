#include "collectives/claims/node_moves.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardrun::collectives {

NodeLoad node_load(const NodeIds& node, std::span<const ClaimSlot> slots, std::uint64_t pool_numbers) noexcept
{
    NodeLoad load;
    // A pool number's block is not opened yet: at most as large as the last one opened.
    load.unstarted = node.open_end - node.open_next + pool_numbers * std::max<std::uint64_t>(node.last_block, 1);
    load.pool_numbers = pool_numbers;
    load.claimers = std::max<std::int64_t>(1, static_cast<std::int64_t>(slots.size()));
    double sum = 0;
    int known = 0;
    for (const auto& slot : slots) {
        load.unstarted += slot.end - slot.next;
        if (slot.seconds_per_id <= 0) continue;
        sum += slot.seconds_per_id;
        ++known;
    }
    load.seconds_per_id = known > 0 ? sum / known : 0.0;
    return load;
}

double finish_estimate(const NodeLoad& load) noexcept
{
    if (load.unstarted == 0) return 0.0;
    if (load.seconds_per_id <= 0) return std::numeric_limits<double>::infinity();
    const auto claimers = static_cast<double>(std::max<std::int64_t>(load.claimers, 1));
    return (static_cast<double>(load.unstarted) + claimers / 2) * load.seconds_per_id / claimers;
}

// A move ends both nodes about half the giver's remaining work per claimer earlier: it is asked
// for only when that gain is at least one of the taker's tasks, so when the giver's claimers need
// two of them to start its unstarted ids. At 1 (before), benchmarks/scheduler's work of one speed
// sent small moves at the very end and requests that found nothing once the node was dry (1.03 x
// the round trips of claims within nodes); at 2 none, and the slow-node case is unchanged.
constexpr double move_worth_tasks = 2.0;

bool worth_moving(const NodeLoad& giver, double taker_seconds_per_id) noexcept
{
    // One id is never worth two round trips and a wait for the giver's poll: its own claimers start it soon.
    if (giver.unstarted < 2) return false;
    if (giver.seconds_per_id <= 0) return true;
    const double taker = taker_seconds_per_id > 0 ? taker_seconds_per_id : giver.seconds_per_id;
    const auto claimers = static_cast<double>(std::max<std::int64_t>(giver.claimers, 1));
    return static_cast<double>(giver.unstarted) * giver.seconds_per_id / claimers >= move_worth_tasks * taker;
}

std::uint64_t give_count(const NodeLoad& giver, std::uint64_t open_ids, double taker_seconds_per_id,
                         std::int64_t taker_claimers) noexcept
{
    if (!worth_moving(giver, taker_seconds_per_id)) return 0;
    // No measurement yet: the giver keeps what its claimers hold and waits for one.
    if (giver.seconds_per_id <= 0) return open_ids;
    const auto giver_claimers = static_cast<double>(std::max<std::int64_t>(giver.claimers, 1));
    const double taker = taker_seconds_per_id > 0 ? taker_seconds_per_id : giver.seconds_per_id;
    const double giver_rate = giver_claimers / giver.seconds_per_id;
    const double taker_rate = static_cast<double>(std::max<std::int64_t>(taker_claimers, 1)) / taker;
    const double balanced = (static_cast<double>(giver.unstarted) + giver_claimers / 2) * taker_rate / (giver_rate + taker_rate);
    return std::min(giver.unstarted, static_cast<std::uint64_t>(std::max(0.0, std::floor(balanced))));
}

IdSpan give_to_dry_node(NodeIds& node, std::span<ClaimSlot> slots, double taker_seconds_per_id,
                        std::int64_t taker_claimers, const std::function<IdSpan()>& pool_block,
                        std::uint64_t pool_numbers)
{
    if (node.open_next >= node.open_end && pool_numbers > 0 && pool_block) {
        const auto block = pool_block();
        node.open_next = block.first;
        node.open_end = block.last;
        node.last_block = block.size();
        --pool_numbers;
    }
    const auto open = node.open_end - node.open_next;
    const auto count = give_count(node_load(node, slots, pool_numbers), open, taker_seconds_per_id, taker_claimers);
    if (count == 0) return {};
    if (open > 0) {
        const auto n = std::min(count, open);
        node.open_end -= n;
        return {node.open_end, node.open_end + n};
    }
    ClaimSlot* richest = nullptr;
    for (auto& slot : slots) {
        if (slot.end > slot.next && (richest == nullptr || slot.end - slot.next > richest->end - richest->next)) richest = &slot;
    }
    if (richest == nullptr) return {};
    // The owner keeps the id it would start next: it may be taking it now.
    const auto n = std::min(count, richest->end - richest->next - 1);
    if (n == 0) return {};
    richest->end -= n;
    return {richest->end, richest->end + n};
}

void receive_ids(ClaimSlot& slot, IdSpan given) noexcept
{
    slot.next = given.first;
    slot.end = given.last;
}

}  // namespace shardrun::collectives
