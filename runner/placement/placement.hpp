#pragma once

#include <cstdint>
#include <vector>

namespace shardrun::placement {

/** Task ids first, first + stride, ... (count of them). */
struct IdBatch {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
    std::uint64_t stride = 1;

    std::uint64_t id(std::uint64_t k) const noexcept { return first + k * stride; }
    std::uint64_t last_id() const noexcept { return count == 0 ? first : id(count - 1); }
};

/** [first, last) of task ids. */
struct IdRange {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    std::uint64_t size() const noexcept { return last - first; }
};

/**
 * The contiguous block of [0, task_count) that array element `index` of `count` runs;
 * the first task_count % count elements get one task more.
 */
IdRange array_block(std::uint64_t task_count, std::uint64_t index, std::uint64_t count) noexcept;

/** Where one rank runs, as far as forming groups is concerned. */
struct RankPlace {
    int node = 0;        ///< node index (nodes ordered by their lowest world rank)
    int local_rank = 0;  ///< rank on that node
};

/** Which group a rank belongs to. */
struct GroupLayout {
    int groups = 1;         ///< world_size / G
    int group = 0;          ///< this rank's group
    int rank_in_group = 0;  ///< 0 is the group's leader
    int size = 1;           ///< G
    int local_rank_in_group = 0;  ///< among the members on this rank's node (torchrun's LOCAL_RANK)
    int local_members = 1;        ///< members on this rank's node (LOCAL_WORLD_SIZE)
    bool spans_nodes = false;     ///< this group has members on more than one node
};

/**
 * Forms groups of G = gpus_per_task ranks: ranks ordered by (node, local rank), each G in a
 * row one group. So groups are consecutive local ranks of one node whenever G divides every
 * node's rank count, and span nodes only when it does not (G larger than the ranks per node).
 * @param places  every rank's place, indexed by world rank
 * @return every rank's layout, indexed by world rank
 * @throws UsageError when gpus_per_task does not divide the rank count
 */
std::vector<GroupLayout> form_groups(const std::vector<RankPlace>& places, int gpus_per_task);

/** The layout of `rank` when ranks_per_node consecutive world ranks share each node (plan, tests). */
GroupLayout group_layout(int rank, int world_size, int gpus_per_task, int ranks_per_node = 0);

/** Static block schedule: group g's contiguous share of `range`. */
IdBatch block_share(IdRange range, int group, int groups) noexcept;

/** Static cyclic schedule: ids range.first + group + k * groups. */
IdBatch cyclic_share(IdRange range, int group, int groups) noexcept;

/** Dynamic claim size: ceil(remaining / (4 * groups)) within [min_claim, max_claim], at most remaining. */
std::uint64_t claim_size(std::uint64_t remaining, int groups, std::uint64_t min_claim, std::uint64_t max_claim) noexcept;

/** Seconds of the claimant's own work one dynamic claim covers (issue 25: a slow rank claims few ids). */
inline constexpr double claim_span_seconds = 0.1;

/**
 * Ids a dynamic claimant asks for: enough to keep its `slots` busy for `span` seconds at its
 * measured task time, 1 until a task has ended (seconds_per_task 0), within
 * [min_claim, max_claim]. The claim block it comes out of (ClaimSequence) caps it further
 * at a share of the remaining ids.
 */
std::uint64_t adaptive_claim(double seconds_per_task, int slots, double span, std::uint64_t min_claim,
                             std::uint64_t max_claim) noexcept;

/**
 * The fixed sequence of dynamic claims over a range: claim n always covers the same ids, so
 * a shared counter of claim numbers (one atomic add per claim) hands out every id once.
 * Claims shrink toward the end so the tail is balanced. Lookups must not go backwards.
 */
class ClaimSequence {
public:
    ClaimSequence(IdRange range, int groups, std::uint64_t min_claim, std::uint64_t max_claim) noexcept;

    /** The ids of claim `number`; count 0 once the range is used up. */
    IdBatch claim(std::uint64_t number) noexcept;

private:
    IdRange range_;
    int groups_;
    std::uint64_t min_claim_, max_claim_;
    std::uint64_t cursor_number_ = 0;  ///< claim number whose start is cursor_start_
    std::uint64_t cursor_start_;
};

}  // namespace shardrun::placement
