// The failed rows of a data chunk (io/row_failures.hpp): carried in the task's attempt log,
// kept through a merge as the latest run's, written to /attempts/row_failures and read back.
#include "io/row_failures.hpp"

#include <gtest/gtest.h>

#include "io/attempt_log.hpp"
#include "io/hdf5/handle.hpp"
#include "io/task_rows/attempts_group.hpp"
#include "output_test_support.hpp"

namespace shardrun::io {
namespace {

std::string log_of(double start, const std::vector<RowFailure>& rows)
{
    return encode_attempts({AttemptRecord{1, rows.empty() ? 0 : 137, start, start + 1, 0, "m"}}) +
           encode_row_failures(rows);
}

TEST(RowFailures, TravelInTheAttemptLogBesideTheAttempts)
{
    const std::vector<RowFailure> rows{{300, 137, "killed\tby signal 9"}, {301, 1, "answered failed"}};

    const auto log = log_of(5.0, rows);

    const auto back = decode_row_failures(log);
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].item, 300u);
    EXPECT_EQ(back[0].exit_code, 137);
    EXPECT_EQ(back[0].reason, "killed by signal 9");
    EXPECT_EQ(back[1].item, 301u);
    EXPECT_EQ(decode_attempts(log).size(), 1u) << "the row lines are no attempts";
    EXPECT_TRUE(has_row_failures(log));
    EXPECT_FALSE(has_row_failures(log_of(5.0, {})));
}

TEST(RowFailures, AMergeKeepsThoseOfTheLatestRun)
{
    const auto earlier = log_of(5.0, {{300, 137, "old"}});
    const auto later_ok = log_of(9.0, {});
    const auto later_failed = log_of(9.0, {{301, 137, "new"}});

    const auto cleared = merge_attempt_logs(earlier, later_ok);
    const auto replaced = merge_attempt_logs(later_failed, earlier);

    EXPECT_EQ(decode_attempts(cleared).size(), 2u);
    EXPECT_TRUE(decode_row_failures(cleared).empty());
    const auto rows = decode_row_failures(replaced);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].item, 301u);
}

TEST(RowFailures, AreWrittenUnderAttemptsAndReadBackWithTheirTasks)
{
    const auto path = testing::scratch_dir() + "/rows.h5";
    TaskRows block;
    block.assign_pending(0, 4);
    block.attempt_log[1] = log_of(5.0, {{300, 137, "first"}});
    block.attempt_log[2] = log_of(6.0, {});
    block.attempt_log[3] = log_of(7.0, {{700, 1, "a"}, {760, 1, "b"}});
    {
        auto file = SHARDRUN_H5_OPEN(File, H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
        AttemptsWriter writer(file.get());
        writer.append(block);
        writer.finish();
    }

    auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const auto logs = read_attempt_logs(file.get(), 1, 3);

    EXPECT_EQ(testing::read_ints(file.get(), "attempts/row_failures/item"), (std::vector<std::int64_t>{300, 700, 760}));
    EXPECT_EQ(testing::read_ints(file.get(), "attempts/row_failures/task"), (std::vector<std::int64_t>{1, 3, 3}));
    ASSERT_EQ(logs.size(), 3u);
    EXPECT_EQ(decode_row_failures(logs[0]).at(0).reason, "first");
    EXPECT_TRUE(decode_row_failures(logs[1]).empty());
    EXPECT_EQ(decode_row_failures(logs[2]).size(), 2u);
    EXPECT_EQ(decode_attempts(logs[2]).size(), 1u);
}

}  // namespace
}  // namespace shardrun::io
