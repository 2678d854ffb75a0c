// Moves of unstarted ids between nodes (collectives/claims/node_moves): whom a dry node asks,
// how many ids make both nodes end together, and where the ids come from, each in one place.
#include "collectives/claims/node_moves.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace shardrun::collectives {
namespace {

TEST(NodeMoves, TheLoadCountsOpenPoolAndSlotIdsAndTheMeasuredMean)
{
    NodeIds node{10, 20};
    std::vector<ClaimSlot> slots{{0, 3, 2.0}, {5, 5, 0.0}, {7, 8, 4.0}};

    const auto load = node_load(node, slots, 2);

    EXPECT_EQ(load.unstarted, 10u + 2u + 3u + 1u);  // no block opened yet: a pool number counts 1
    EXPECT_DOUBLE_EQ(load.seconds_per_id, 3.0);  // the unmeasured slot does not count
    EXPECT_EQ(load.claimers, 3);
}

TEST(NodeMoves, AnUnmeasuredNodeWithIdsFinishesLastAndAnEmptyOneAtOnce)
{
    EXPECT_TRUE(std::isinf(finish_estimate({5, 0.0, 2})));
    EXPECT_DOUBLE_EQ(finish_estimate({0, 1.0, 2}), 0.0);
    EXPECT_DOUBLE_EQ(finish_estimate({9, 1.0, 2}), (9 + 1) * 1.0 / 2);  // running tasks half done
}

TEST(NodeMoves, BothEndTogether)
{
    // Giver: 2 claimers at 1 s an id, 20 unstarted: alone it ends at (20 + 1) / 2 = 10.5 s.
    // Taker: 2 claimers at 0.1 s: n ids end at n x 0.05 s; (21 - n) / 2 = n / 20 gives n = 19.09.
    EXPECT_EQ(give_count({20, 1.0, 2}, 20, 0.1, 2), 19u);
    // Alike: about half (counting the giver's two running tasks as half done).
    EXPECT_EQ(give_count({20, 1.0, 2}, 20, 1.0, 2), 10u);
    // A taker of unknown speed counts as the giver's.
    EXPECT_EQ(give_count({20, 1.0, 2}, 20, 0.0, 2), 10u);
}

TEST(NodeMoves, ANodeWithNoMeasurementGivesItsWholeOpenBlock)
{
    EXPECT_EQ(give_count({15, 0.0, 2}, 15, 0.01, 2), 15u);
    EXPECT_EQ(give_count({2, 0.0, 2}, 0, 0.01, 2), 0u);  // only slot ids: its claimers keep them
}

TEST(NodeMoves, LittleWorkPerClaimerIsNotWorthTwoRoundTrips)
{
    // 64 claimers at 1 s, 10 unstarted: all start within 10 / 64 s, less than the taker's task.
    EXPECT_FALSE(worth_moving({10, 1.0, 64}, 1.0));
    EXPECT_EQ(give_count({10, 1.0, 64}, 10, 1.0, 64), 0u);
    EXPECT_TRUE(worth_moving({10, 1.0, 2}, 0.1));
    EXPECT_FALSE(worth_moving({0, 1.0, 2}, 0.1));
}

TEST(NodeMoves, AGiverWithinTwoOfTheTakersTasksIsNotAsked)
{
    // 2 claimers at 1 s, 3 unstarted: they start the last within 1.5 s, under two of a like
    // taker's tasks; a move would end both about 0.75 s earlier, less than one task.
    EXPECT_FALSE(worth_moving({3, 1.0, 2}, 1.0));
    EXPECT_EQ(give_count({3, 1.0, 2}, 3, 1.0, 2), 0u);
    // Two of the taker's tasks per claimer: a task's time gained, worth it.
    EXPECT_TRUE(worth_moving({4, 1.0, 2}, 1.0));
    // A slow giver (10 x the taker's time per id) with 3 unstarted: 15 of the taker's tasks.
    EXPECT_TRUE(worth_moving({3, 1.0, 2}, 0.1));
}

TEST(NodeMoves, GivingTakesTheBackOfTheOpenBlockFirst)
{
    NodeIds node{100, 120};
    std::vector<ClaimSlot> slots{{10, 12, 1.0}, {50, 51, 1.0}};

    const auto given = give_to_dry_node(node, slots, 0.1, 2);

    ASSERT_GT(given.size(), 0u);
    EXPECT_EQ(given.last, 120u);
    EXPECT_EQ(node.open_end, given.first);  // out of the node, into the answer: one place each
    EXPECT_EQ(slots[0].end, 12u);
    EXPECT_EQ(slots[1].end, 51u);
}

TEST(NodeMoves, GivingOpensAPoolBlockWhenTheOpenOneIsEmpty)
{
    NodeIds node{};
    std::vector<ClaimSlot> slots{{0, 0, 1.0}, {0, 0, 1.0}};
    int opened = 0;

    const auto given = give_to_dry_node(node, slots, 0.1, 2, [&] {
        ++opened;
        return IdSpan{300, 340};
    }, 1);

    EXPECT_EQ(opened, 1);
    EXPECT_EQ(given.last, 340u);
    EXPECT_EQ(node.open_next, 300u);
    EXPECT_EQ(node.open_end, given.first);
}

TEST(NodeMoves, WithNoOpenIdsTheRichestSlotGivesItsBackAndKeepsItsNext)
{
    NodeIds node{};
    std::vector<ClaimSlot> slots{{10, 12, 1.0}, {50, 60, 1.0}};

    const auto given = give_to_dry_node(node, slots, 0.01, 2);

    EXPECT_EQ(given.last, 60u);
    EXPECT_EQ(slots[1].end, given.first);
    EXPECT_GE(slots[1].end, 51u);  // its owner keeps the id it starts next
    EXPECT_EQ(slots[0].end, 12u);
}

TEST(NodeMoves, ReceivedIdsFillTheAskersSlot)
{
    ClaimSlot slot{7, 7, 0.5};
    receive_ids(slot, {40, 45});
    EXPECT_EQ(slot.next, 40u);
    EXPECT_EQ(slot.end, 45u);
    EXPECT_EQ(take_from_slot(slot), 40u);
}

}  // namespace
}  // namespace shardrun::collectives
