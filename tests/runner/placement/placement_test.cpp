#include "runner/placement/placement.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "runner/errors.hpp"

namespace shardrun::placement {
namespace {

struct ClaimBounds {
    std::uint64_t min_claim;
    std::uint64_t max_claim;
};

const std::vector<std::uint64_t> task_counts = {0, 1, 2, 7, 100, 1013};
const std::vector<std::uint64_t> array_counts = {1, 2, 3, 7};
const std::vector<int> rank_counts = {1, 2, 4, 6};
const std::vector<ClaimBounds> claim_bounds = {{1, 0}, {1, 5}, {3, 0}, {4, 4}, {10, 2}};

std::vector<int> divisors_of(int n)
{
    std::vector<int> divisors;
    for (int d = 1; d <= n; ++d) {
        if (n % d == 0) divisors.push_back(d);
    }
    return divisors;
}

std::string combination(std::uint64_t t, std::uint64_t a, int r, int g)
{
    return "T=" + std::to_string(t) + " A=" + std::to_string(a) + " R=" + std::to_string(r) + " G=" + std::to_string(g);
}

void add_batch(const IdBatch& batch, std::vector<int>& seen)
{
    for (std::uint64_t k = 0; k < batch.count; ++k) {
        const auto id = batch.id(k);
        if (id < seen.size()) {
            ++seen[id];
        } else {
            seen.push_back(-1000);  // out of range: makes the coverage check fail
        }
    }
}

// Hands out claims of one element's range the way the shared counter does: one counter,
// groups asking in turn (round robin, a busier group skipping turns), each group with its own
// ClaimSequence and seeing its claim numbers in increasing order. Returns the claim sizes.
std::vector<std::uint64_t> simulate_dynamic(IdRange range, int groups, ClaimBounds bounds, std::vector<int>& seen)
{
    std::vector<ClaimSequence> sequences;
    for (int g = 0; g < groups; ++g) sequences.emplace_back(range, groups, bounds.min_claim, bounds.max_claim);
    std::vector<bool> done(static_cast<size_t>(groups), false);
    std::vector<std::uint64_t> sizes;
    std::uint64_t counter = 0;
    int finished = 0;
    for (std::uint64_t turn = 0; finished < groups; ++turn) {
        const auto g = static_cast<int>(turn % static_cast<std::uint64_t>(groups));
        const auto round = turn / static_cast<std::uint64_t>(groups);
        if (done[g] || (g % 2 == 1 && round % 3 == 0)) continue;
        const auto batch = sequences[g].claim(counter++);
        if (batch.count == 0) {
            done[g] = true;
            ++finished;
            continue;
        }
        sizes.push_back(batch.count);
        add_batch(batch, seen);
    }
    return sizes;
}

bool each_exactly_once(const std::vector<int>& seen)
{
    for (const int count : seen) {
        if (count != 1) return false;
    }
    return true;
}

TEST(Placement, ArrayBlocksAreContiguousAndCoverEverything)
{
    for (const auto t : task_counts) {
        for (const auto a : array_counts) {
            std::uint64_t next = 0;
            for (std::uint64_t index = 0; index < a; ++index) {
                const auto block = array_block(t, index, a);

                EXPECT_EQ(block.first, next) << "T=" << t << " A=" << a << " a=" << index;
                EXPECT_LE(block.size(), t / a + 1);
                EXPECT_GE(block.size(), t / a);
                next = block.last;
            }
            EXPECT_EQ(next, t);
        }
    }
}

TEST(Placement, EveryIdRunsExactlyOnceUnderEverySchedule)
{
    for (const auto t : task_counts) {
        for (const auto a : array_counts) {
            for (const auto r : rank_counts) {
                for (const auto g : divisors_of(r)) {
                    std::vector<int> block_seen(t, 0), cyclic_seen(t, 0);
                    std::vector<std::vector<int>> dynamic_seen(claim_bounds.size(), std::vector<int>(t, 0));

                    for (std::uint64_t index = 0; index < a; ++index) {
                        const auto element = array_block(t, index, a);
                        const auto layout = group_layout(0, r, g);
                        for (int group = 0; group < layout.groups; ++group) {
                            add_batch(block_share(element, group, layout.groups), block_seen);
                            add_batch(cyclic_share(element, group, layout.groups), cyclic_seen);
                        }
                        for (size_t b = 0; b < claim_bounds.size(); ++b) {
                            simulate_dynamic(element, layout.groups, claim_bounds[b], dynamic_seen[b]);
                        }
                    }

                    EXPECT_TRUE(each_exactly_once(block_seen)) << "block " << combination(t, a, r, g);
                    EXPECT_TRUE(each_exactly_once(cyclic_seen)) << "cyclic " << combination(t, a, r, g);
                    for (size_t b = 0; b < claim_bounds.size(); ++b) {
                        EXPECT_TRUE(each_exactly_once(dynamic_seen[b]))
                            << "dynamic min=" << claim_bounds[b].min_claim << " max=" << claim_bounds[b].max_claim
                            << " " << combination(t, a, r, g);
                    }
                }
            }
        }
    }
}

TEST(Placement, GroupLayoutOfConsecutiveRanks)
{
    const auto layout = group_layout(5, 8, 2);

    EXPECT_EQ(layout.groups, 4);
    EXPECT_EQ(layout.group, 2);
    EXPECT_EQ(layout.rank_in_group, 1);
}

TEST(Placement, GroupLayoutRejectsAGroupSizeThatDoesNotDivideTheRanks)
{
    const int ranks = 6;

    EXPECT_THROW(group_layout(0, ranks, 4), UsageError);
    EXPECT_THROW(group_layout(0, ranks, 0), UsageError);
    EXPECT_NO_THROW(group_layout(0, ranks, 3));
}

TEST(Placement, BlockShareIsContiguousAndBalanced)
{
    const IdRange range{10, 20};

    const auto first = block_share(range, 0, 3);
    const auto last = block_share(range, 2, 3);

    EXPECT_EQ(first.first, 10u);
    EXPECT_EQ(first.count, 4u);
    EXPECT_EQ(first.stride, 1u);
    EXPECT_EQ(last.first, 17u);
    EXPECT_EQ(last.count, 3u);
}

TEST(Placement, CyclicShareStridesByTheGroupCount)
{
    const IdRange range{10, 20};

    const auto share = cyclic_share(range, 1, 3);

    EXPECT_EQ(share.first, 11u);
    EXPECT_EQ(share.stride, 3u);
    EXPECT_EQ(share.count, 3u);
    EXPECT_EQ(share.last_id(), 17u);
}

TEST(Placement, ClaimSizeIsBoundedAndNeverExceedsTheRemainder)
{
    const int groups = 4;

    const auto large = claim_size(800, groups, 1, 0);

    EXPECT_EQ(large, 50u);
    EXPECT_EQ(claim_size(800, groups, 1, 30), 30u);
    EXPECT_EQ(claim_size(5, groups, 1, 0), 1u);
    EXPECT_EQ(claim_size(5, groups, 3, 0), 3u);
    EXPECT_EQ(claim_size(2, groups, 3, 0), 2u);
    EXPECT_EQ(claim_size(0, groups, 1, 0), 0u);
}

TEST(Placement, ClaimsShrinkTowardTheEnd)
{
    for (const auto groups : {1, 2, 3, 8}) {
        for (const auto bounds : claim_bounds) {
            std::vector<int> seen(1013, 0);

            const auto sizes = simulate_dynamic({0, 1013}, groups, bounds, seen);

            ASSERT_FALSE(sizes.empty());
            for (size_t i = 1; i < sizes.size(); ++i) {
                EXPECT_LE(sizes[i], sizes[i - 1]) << "groups=" << groups << " claim " << i;
            }
            EXPECT_LE(sizes.back(), sizes.front());
            if (bounds.max_claim > 0) EXPECT_LE(sizes.front(), bounds.max_claim);
        }
    }
}

TEST(Placement, ClaimSequenceIsTheSameForEveryGroup)
{
    ClaimSequence first({100, 400}, 3, 2, 0);
    ClaimSequence second({100, 400}, 3, 2, 0);

    const auto late = second.claim(5);
    first.claim(0);
    first.claim(2);
    const auto same = first.claim(5);

    EXPECT_EQ(late.first, same.first);
    EXPECT_EQ(late.count, same.count);
}

TEST(Placement, AdaptiveClaimIsOneUntilATaskEnds)
{
    const auto first = adaptive_claim(0.0, 1, claim_span_seconds, 1, 0);

    EXPECT_EQ(first, 1u);
    EXPECT_EQ(adaptive_claim(0.0, 4, claim_span_seconds, 1, 0), 1u);
    EXPECT_EQ(adaptive_claim(0.0, 1, claim_span_seconds, 3, 0), 3u);  // min_claim stays the floor
}

TEST(Placement, AdaptiveClaimCoversTheSpanOfTheClaimantsOwnWork)
{
    const auto fast = adaptive_claim(0.001, 1, 0.1, 1, 0);

    EXPECT_EQ(fast, 100u);
    EXPECT_EQ(adaptive_claim(0.001, 2, 0.1, 1, 0), 200u);  // two slots run twice the ids in the span
    EXPECT_EQ(adaptive_claim(1.0, 1, 0.1, 1, 0), 1u);      // a slow claimant claims one at a time
    EXPECT_EQ(adaptive_claim(10.0, 1, 0.1, 1, 0), 1u);
    EXPECT_EQ(adaptive_claim(0.001, 1, 0.1, 1, 30), 30u);  // max_claim caps it
    EXPECT_EQ(adaptive_claim(1.0, 1, 0.1, 5, 0), 5u);      // min_claim floors it
    EXPECT_EQ(adaptive_claim(1e-30, 1, 0.1, 1, 0), std::uint64_t{1} << 52);
}

TEST(Placement, ClaimPastTheEndIsEmpty)
{
    ClaimSequence claims({0, 10}, 1, 1, 0);

    const auto batch = claims.claim(1000);

    EXPECT_EQ(batch.count, 0u);
}

}  // namespace
}  // namespace shardrun::placement
