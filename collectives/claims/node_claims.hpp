#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

namespace shardrun::collectives {

/** Numbers [first, last): ids as far as the claim counter knows (it knows nothing of tasks). */
struct IdSpan {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    std::uint64_t size() const noexcept { return last - first; }
};

/**
 * One claimer's claimed ids that it has not started: [next, end). The owner takes from the
 * front, one id per task; a claimer of the same node that runs dry takes from the back.
 */
struct ClaimSlot {
    std::uint64_t next = 0;
    std::uint64_t end = 0;
    double seconds_per_id = 0;  ///< the owner's measured time per id (0: no task ended yet)
};

/** What a node holds and no claimer has taken into its slot yet. */
struct NodeIds {
    std::uint64_t open_next = 0;  ///< rest of the node's last claim block: [open_next, open_end)
    std::uint64_t open_end = 0;
    bool exhausted = false;       ///< the claim numbers are used up: no fresh block will come
    std::uint64_t taken_back = 0; ///< ids claimers of this node took from another's slot
    std::uint64_t last_block = 0; ///< size of the last claim block opened here (blocks only shrink: a bound on the next)
};

/**
 * Fills slot `mine` (empty) with up to `want` ids, in this order: the node's open ids; the
 * block of a fresh claim number (`next_block`, which refills the node's pool when it must;
 * an empty span means the numbers are used up); once the numbers are used up, ids another
 * claimer of the node claimed but has not started (take-back). Every id moves out of one
 * place into another with the node's lock held, so no id is ever in two places: that is
 * why no id runs twice. Pure: the caller holds the node's lock (WorkCounters) or is a
 * simulation (benchmarks/scheduler).
 * @param want  at least 1
 * @return the ids now in slot `mine` (0: the node has none left to hand out)
 */
std::uint64_t fill_slot(NodeIds& node, std::span<ClaimSlot> slots, std::size_t mine, std::uint64_t want,
                        const std::function<IdSpan()>& next_block);

/** The owner takes the first id of its slot; nullopt when the slot is empty. */
std::optional<std::uint64_t> take_from_slot(ClaimSlot& slot) noexcept;

/**
 * How many ids a claimer that runs dry takes from the back of `victim`: as many as make
 * both end together, counting the task the owner is running as half done. A thief slower
 * than the rest of the owner's queue takes none.
 * @param thief_seconds_per_id  0 when unknown (taken as the owner's, and the other way round)
 */
std::uint64_t take_back_count(const ClaimSlot& victim, double thief_seconds_per_id, std::uint64_t want) noexcept;

}  // namespace shardrun::collectives
