#include "collectives/claims/node_claims.hpp"

#include <algorithm>
#include <cmath>

namespace shardrun::collectives {
namespace {

// Moves up to `want` ids of [next, end) (its front) into `slot`.
std::uint64_t move_front(std::uint64_t& next, std::uint64_t end, ClaimSlot& slot, std::uint64_t want) noexcept
{
    const auto count = std::min(want, end > next ? end - next : 0);
    slot.next = next;
    slot.end = next + count;
    next += count;
    return count;
}

// The slot on the node with the most work left that a thief would take ids from; none when
// no other slot holds an id.
std::optional<std::size_t> richest_victim(std::span<ClaimSlot> slots, std::size_t mine) noexcept
{
    std::optional<std::size_t> best;
    double best_work = -1;
    for (std::size_t k = 0; k < slots.size(); ++k) {
        const auto left = slots[k].end - slots[k].next;
        if (k == mine || left == 0) continue;
        // An owner with no measurement yet counts as one second per id: unknown work is worth taking.
        const double work = static_cast<double>(left) * (slots[k].seconds_per_id > 0 ? slots[k].seconds_per_id : 1.0);
        if (work > best_work) {
            best_work = work;
            best = k;
        }
    }
    return best;
}

}  // namespace

std::uint64_t take_back_count(const ClaimSlot& victim, double thief_seconds_per_id, std::uint64_t want) noexcept
{
    const auto left = victim.end - victim.next;
    if (left == 0) return 0;
    double owner = victim.seconds_per_id, thief = thief_seconds_per_id;
    if (owner <= 0) owner = thief > 0 ? thief : 1.0;
    if (thief <= 0) thief = owner;
    // The owner ends its queue at (left + 1/2) x owner - n x owner; the thief at n x thief.
    const double balanced = (static_cast<double>(left) + 0.5) * owner / (owner + thief);
    const auto count = static_cast<std::uint64_t>(std::llround(balanced));
    return std::min({count, left, std::max<std::uint64_t>(want, 1)});
}

std::uint64_t fill_slot(NodeIds& node, std::span<ClaimSlot> slots, std::size_t mine, std::uint64_t want,
                        const std::function<IdSpan()>& next_block)
{
    auto& slot = slots[mine];
    want = std::max<std::uint64_t>(want, 1);
    if (node.open_next < node.open_end) return move_front(node.open_next, node.open_end, slot, want);
    if (!node.exhausted) {
        const auto block = next_block();
        if (block.size() > 0) {
            node.open_next = block.first;
            node.open_end = block.last;
            node.last_block = block.size();
            return move_front(node.open_next, node.open_end, slot, want);
        }
        node.exhausted = true;
    }
    const auto victim = richest_victim(slots, mine);
    if (!victim) return 0;
    auto& from = slots[*victim];
    const auto count = take_back_count(from, slot.seconds_per_id, want);
    if (count == 0) return 0;
    // The back of the victim's queue: the owner only ever takes from the front.
    from.end -= count;
    slot.next = from.end;
    slot.end = from.end + count;
    node.taken_back += count;
    return count;
}

std::optional<std::uint64_t> take_from_slot(ClaimSlot& slot) noexcept
{
    if (slot.next >= slot.end) return std::nullopt;
    return slot.next++;
}

}  // namespace shardrun::collectives
