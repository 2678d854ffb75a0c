#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "collectives/claims/node_claims.hpp"

namespace shardrun::collectives {

/**
 * Moves of unstarted ids between nodes (issue 36): the rule a node that runs dry follows.
 *
 * A node is dry when the claim numbers are used up and none of its claimers holds ids a
 * node-mate may take back (fill_slot returned 0). It then asks for ids from the node that
 * will finish last, by what that node holds unstarted and its claimers' measured time per
 * id, and that node gives away as many as make both end together. A node with no
 * measurement yet gives away every id of its open claim block: what it is owed waits for its
 * first measurement, so a slow node never sits on a full share. Each move takes one span out
 * of the giver's structures with its node lock held (give_to_dry_node) and puts it into the
 * asking claimer's empty slot; between the two it is in one message, which the giver sends
 * as its answer (an acknowledged hand-off), so every id is in exactly one place at a time.
 * Pure functions: WorkCounters runs them under the node lock, benchmarks/scheduler in its
 * simulation.
 */

/** What one node holds unstarted and how fast its claimers go. */
struct NodeLoad {
    std::uint64_t unstarted = 0;  ///< the open block's ids and every slot's
    double seconds_per_id = 0;    ///< the measured claimers' mean time per id; 0: none measured
    std::int64_t claimers = 1;
    std::uint64_t pool_numbers = 0;  ///< claim numbers whose blocks are not opened yet (in unstarted as large as the last block)
};

/**
 * The load of the node whose open ids are `node` and whose claimers' slots are `slots`.
 * @param pool_numbers  claim numbers its pool holds and no block was opened for (each as large as the last opened)
 */
NodeLoad node_load(const NodeIds& node, std::span<const ClaimSlot> slots, std::uint64_t pool_numbers = 0) noexcept;

/**
 * When the node would end what it holds, in seconds from now, counting each running task as
 * half done; a node with unstarted ids and no measurement ends "never" (it is asked first:
 * unknown work is worth taking), and one with nothing unstarted at 0.
 */
double finish_estimate(const NodeLoad& load) noexcept;

/**
 * Whether a dry node whose claimers take `taker_seconds_per_id` (0: unknown, taken as the
 * giver's) should ask this node for ids at all: it holds at least two of the taker's tasks'
 * worth of unstarted work per claimer (or has no measurement yet, and unstarted ids; a claim
 * number its pool holds counts as large as the last block it opened). Below that the giver's
 * own claimers start every id within a few of the taker's tasks (or it holds a single id), and a
 * move would cost two round trips to end both less than one task earlier: so on work of one speed
 * across the nodes the tail costs no messages beyond the claims of before.
 */
bool worth_moving(const NodeLoad& giver, double taker_seconds_per_id) noexcept;

/**
 * How many of the giver's unstarted ids a dry node takes so that both end together: n with
 * (unstarted + claimers / 2 - n) x giver's time per claimer = n x taker's. All of the open
 * block when the giver has no measurement; none when it is not worth_moving(), or the taker
 * is so slow that the giver ends first anyway.
 * @param taker_seconds_per_id  0 when unknown (taken as the giver's)
 */
std::uint64_t give_count(const NodeLoad& giver, std::uint64_t open_ids, double taker_seconds_per_id,
                         std::int64_t taker_claimers) noexcept;

/**
 * Takes the ids a dry node gets out of this node (its lock held): from the back of the open
 * block (first opening the block of a claim number its pool holds, when the open block is
 * empty), else the back of the slot with most work left (its owner takes from the front).
 * @param pool_block  the block of the pool's next claim number, taken out of the pool; empty when none
 * @param pool_numbers  how many numbers the pool holds
 * @return the span given away; empty when none is worth moving
 */
IdSpan give_to_dry_node(NodeIds& node, std::span<ClaimSlot> slots, double taker_seconds_per_id,
                        std::int64_t taker_claimers, const std::function<IdSpan()>& pool_block = {},
                        std::uint64_t pool_numbers = 0);

/** Puts ids a dry node was given into the asking claimer's slot (empty: it ran dry). */
void receive_ids(ClaimSlot& slot, IdSpan given) noexcept;

}  // namespace shardrun::collectives
