// The node's claimed ids (collectives/claims/node_claims): slots filled from the open block,
// from fresh claim blocks, and, once the claim numbers are used up, from another claimer's
// unstarted ids, with every id in exactly one place.
#include "collectives/claims/node_claims.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace shardrun::collectives {
namespace {

// Claim blocks of `size` ids over [0, total), as a claim counter would hand them out.
struct Blocks {
    std::uint64_t total, size, next = 0;
    IdSpan operator()()
    {
        const IdSpan block{std::min(next, total), std::min(next + size, total)};
        next = block.last;
        return block;
    }
};

TEST(NodeClaims, AClaimTakesWhatItWantsOutOfTheOpenBlock)
{
    NodeIds node;
    std::vector<ClaimSlot> slots(2);
    Blocks blocks{100, 40};

    const auto first = fill_slot(node, slots, 0, 3, std::ref(blocks));
    const auto second = fill_slot(node, slots, 1, 100, std::ref(blocks));

    EXPECT_EQ(first, 3u);
    EXPECT_EQ(slots[0].next, 0u);
    EXPECT_EQ(slots[0].end, 3u);
    EXPECT_EQ(second, 37u);  // the rest of the open block, no more
    EXPECT_EQ(slots[1].next, 3u);
    EXPECT_EQ(slots[1].end, 40u);
    EXPECT_EQ(node.open_next, node.open_end);
}

TEST(NodeClaims, AnEmptyOpenBlockTakesTheNextClaimBlock)
{
    NodeIds node;
    std::vector<ClaimSlot> slots(1);
    Blocks blocks{100, 40};
    fill_slot(node, slots, 0, 40, std::ref(blocks));
    slots[0].next = slots[0].end;  // all started

    const auto count = fill_slot(node, slots, 0, 5, std::ref(blocks));

    EXPECT_EQ(count, 5u);
    EXPECT_EQ(slots[0].next, 40u);
    EXPECT_FALSE(node.exhausted);
}

TEST(NodeClaims, ADryClaimerTakesBackTheSlowOnesUnstartedIds)
{
    NodeIds node;
    std::vector<ClaimSlot> slots(2);
    Blocks blocks{20, 20};
    fill_slot(node, slots, 0, 20, std::ref(blocks));  // the slow claimer holds everything
    slots[0].seconds_per_id = 1.0;
    ASSERT_TRUE(take_from_slot(slots[0]).has_value());  // and runs id 0
    slots[1].seconds_per_id = 0.01;

    const auto count = fill_slot(node, slots, 1, 1000, std::ref(blocks));

    EXPECT_TRUE(node.exhausted);
    EXPECT_EQ(count, 19u);  // 19.5 x 1 / 1.01 rounds to 19: the slow one keeps none to start
    EXPECT_EQ(slots[1].next, 1u);
    EXPECT_EQ(slots[1].end, 20u);
    EXPECT_EQ(slots[0].end, 1u);
    EXPECT_EQ(node.taken_back, 19u);
}

TEST(NodeClaims, ASlowThiefTakesNothingFromAFastQueue)
{
    NodeIds node{0, 0, true, 0};
    std::vector<ClaimSlot> slots{{10, 13, 0.001}, {0, 0, 1.0}};

    const auto count = fill_slot(node, slots, 1, 1, [] { return IdSpan{}; });

    EXPECT_EQ(count, 0u);
    EXPECT_EQ(slots[0].end, 13u);
}

TEST(NodeClaims, EqualClaimersSplitTheRestAndTheLastIdGoesToTheIdleOne)
{
    const ClaimSlot ten{0, 10, 1.0};
    const ClaimSlot one{0, 1, 1.0};

    EXPECT_EQ(take_back_count(ten, 1.0, 100), 5u);  // 10.5 / 2 rounds to 5
    EXPECT_EQ(take_back_count(ten, 1.0, 3), 3u);    // no more than the thief wants
    EXPECT_EQ(take_back_count(one, 1.0, 1), 1u);    // the owner is still running a task
    EXPECT_EQ(take_back_count(one, 0.0, 1), 1u);    // an unknown thief counts as the owner's speed
}

TEST(NodeClaims, EveryIdIsHandedOutOnceWhateverTheOrder)
{
    // Three claimers of different speeds take turns by a fixed pattern until the node is dry.
    NodeIds node;
    std::vector<ClaimSlot> slots(3);
    Blocks blocks{1000, 64};
    std::vector<int> seen(1000, 0);
    const double speed[] = {1.0, 0.1, 0.01};
    for (std::size_t k = 0; k < 3; ++k) slots[k].seconds_per_id = speed[k];
    std::vector<bool> done(3, false);
    for (unsigned step = 0; !(done[0] && done[1] && done[2]); ++step) {
        const auto k = static_cast<std::size_t>((step * 7 + step / 3) % 3);
        if (done[k]) continue;
        auto id = take_from_slot(slots[k]);
        if (!id && fill_slot(node, slots, k, 1 + step % 17, std::ref(blocks)) > 0) id = take_from_slot(slots[k]);
        if (!id) {
            done[k] = true;
            continue;
        }
        ++seen[*id];
    }

    for (std::size_t id = 0; id < seen.size(); ++id) EXPECT_EQ(seen[id], 1) << "id " << id;
}

}  // namespace
}  // namespace shardrun::collectives
