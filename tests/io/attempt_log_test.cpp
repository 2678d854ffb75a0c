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

TEST(AttemptLog, NextAttemptReadsWhatDecodeReadsAndSkipsRowLines)
{
    // The master's /attempts columns come from next_attempt(), the records from decode_attempts(): one reading.
    const auto log = encode_attempts({{1, 143, 10.5, 20.25, 1, "killed\tby signal 15", "node-a", true},
                                      {2, 0, 30.0, 31.0, 0, "", "node-b", false}}) +
                     "1\t2\t1.5\t2.5\t3\tsix fields\n" + encode_row_failures({{7, 9, "poison"}}) + "malformed\n";
    const auto records = decode_attempts(log);
    ASSERT_EQ(records.size(), 3u);
    std::string_view text = log;
    std::size_t seen = 0;
    for (AttemptView a; next_attempt(text, a); ++seen) {
        ASSERT_LT(seen, records.size());
        const auto& want = records[seen];
        EXPECT_EQ(a.attempt, want.attempt);
        EXPECT_EQ(a.exit_code, want.exit_code);
        EXPECT_EQ(a.start, want.start);
        EXPECT_EQ(a.end, want.end);
        EXPECT_EQ(a.rank, want.rank);
        EXPECT_EQ(a.host, want.host);
        EXPECT_EQ(a.message, want.message);
        EXPECT_EQ(a.interrupted, want.interrupted);
    }
    EXPECT_EQ(seen, 3u);
    EXPECT_EQ(records[0].message, "killed by signal 15") << "one_line() made the tab a space";
    EXPECT_EQ(records[2].host, "") << "a six-field line has no host";
    EXPECT_TRUE(text.empty());
}

}  // namespace
}  // namespace shardrun::io
