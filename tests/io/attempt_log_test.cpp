// The attempt log a /tasks row carries (io/attempt_log.hpp): host and interrupted travel with each
// attempt (issue 35, point 3), a log written before they existed still reads, and two runs' logs
// join with one numbering.
#include <gtest/gtest.h>

#include "io/attempt_log.hpp"
#include "io/row_failures.hpp"

namespace shardrun::io {
namespace {

TEST(AttemptLog, HostAndInterruptedRoundTrip)
{
    const std::vector<AttemptRecord> written{{1, 143, 10.5, 20.25, 1, "killed by signal 15", "node-a", true},
                                             {2, 0, 30.0, 31.0, 0, "", "node-b", false}};
    const auto read = decode_attempts(encode_attempts(written));
    ASSERT_EQ(read.size(), 2u);
    EXPECT_EQ(read[0].host, "node-a");
    EXPECT_TRUE(read[0].interrupted);
    EXPECT_EQ(read[0].message, "killed by signal 15");
    EXPECT_EQ(read[0].exit_code, 143);
    EXPECT_EQ(read[1].host, "node-b");
    EXPECT_FALSE(read[1].interrupted);
    EXPECT_EQ(read[1].end, 31.0);
}

TEST(AttemptLog, ALogOfSixFieldsStillReads)
{
    const auto read = decode_attempts("1\t2\t1.5\t2.5\t3\tfailed: no such file\n");
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].rank, 3);
    EXPECT_EQ(read[0].message, "failed: no such file");
    EXPECT_EQ(read[0].host, "");
    EXPECT_FALSE(read[0].interrupted);
}

TEST(AttemptLog, AnInterruptedRunAndItsResumeJoinInOrder)
{
    // Both runs counted from 1 (no task folder kept the count): joined, they are 1 and 2, and the count is 2.
    const auto first = encode_attempts({{1, 143, 10, 12, 0, "killed by signal 15", "a", true}});
    const auto resumed = encode_attempts({{1, 0, 40, 41, 1, "", "b", false}});
    const auto joined = merge_attempt_logs(resumed, first);
    const auto read = decode_attempts(joined);
    ASSERT_EQ(read.size(), 2u);
    EXPECT_EQ(read[0].attempt, 1);
    EXPECT_TRUE(read[0].interrupted);
    EXPECT_EQ(read[1].attempt, 2);
    EXPECT_EQ(read[1].host, "b");
    EXPECT_EQ(attempt_count(joined), 2);
    // A chunk's failed rows travel in the same log (io/row_failures.hpp): they are no attempts.
    EXPECT_EQ(attempt_count(joined + encode_row_failures({{7, 9, "poison"}, {8, 9, "poison"}})), 2);
    // The same attempts read twice (a master and a segment a kill left) are kept once.
    EXPECT_EQ(merge_attempt_logs(joined, first), joined);
}

}  // namespace
}  // namespace shardrun::io
