#include "runner/cli/table_pivot.hpp"

#include <gtest/gtest.h>

#include "runner/cli/table_format.hpp"
#include "runner/errors.hpp"

namespace shardrun::cli {
namespace {

/** n x device, cpu first; the cuda task of n=2000 failed (no result). */
io::ResultsTable timing_table()
{
    io::ResultsTable table;
    table.path = "t.h5";
    table.task_count = 4;
    table.has_result = {true, true, true, false};
    table.columns = {
        {"task", io::ColumnRole::task, std::vector<std::int64_t>{0, 1, 2, 3}, false},
        {"n", io::ColumnRole::param, std::vector<std::int64_t>{1000, 1000, 2000, 2000}, false},
        {"device", io::ColumnRole::param, std::vector<std::string>{"cpu", "cuda", "cpu", "cuda"}, false},
        {"seconds", io::ColumnRole::result, std::vector<double>{0.5, 0.125, 4.0, 0.0}, false},
        {"status", io::ColumnRole::status, std::vector<std::string>{"ok", "ok", "ok", "failed"}, false},
    };
    return table;
}

TEST(TablePivot, OneRowPerOtherParamsOneColumnPerValueAndTheRatioOfTimesSlowerOverFaster)
{
    const auto table = timing_table();

    const auto pivoted = pivot_table(table, {0, 1, 2, 3}, "device", "seconds");

    ASSERT_EQ(pivoted.names(), (std::vector<std::string>{"n", "cpu_seconds", "cuda_seconds", "cpu/cuda"}));
    ASSERT_EQ(pivoted.task_count, 2u);
    EXPECT_EQ(std::get<std::vector<std::int64_t>>(pivoted.columns[0].values), (std::vector<std::int64_t>{1000, 2000}));
    EXPECT_EQ(std::get<std::vector<double>>(pivoted.columns[1].values), (std::vector<double>{0.5, 4.0}));
    EXPECT_DOUBLE_EQ(std::get<std::vector<double>>(pivoted.columns[3].values)[0], 4.0);  // 0.5 / 0.125
    EXPECT_TRUE(pivoted.present(2, 0));
    EXPECT_FALSE(pivoted.present(2, 1));  // the failed cuda task
    EXPECT_FALSE(pivoted.present(3, 1));  // so no ratio either
}

TEST(TablePivot, MissingCellsPrintAsDashAndEmptyCsv)
{
    const auto pivoted = pivot_table(timing_table(), {0, 1, 2, 3}, "device", "seconds");

    const auto text = table_text(pivoted, {0, 1});
    const auto csv = table_csv(pivoted, {0, 1});

    EXPECT_EQ(text, "   n  cpu_seconds  cuda_seconds  cpu/cuda\n"
                    "1000          0.5         0.125         4\n"
                    "2000            4             -         -\n");
    // Whole floats keep ".0" in CSV so that pandas reads the columns as float64.
    EXPECT_EQ(csv, "n,cpu_seconds,cuda_seconds,cpu/cuda\n1000,0.5,0.125,4.0\n2000,4.0,,\n");
}

TEST(TablePivot, ARateIsDividedTheOtherWayRoundSoTheFasterDeviceReadsAboveOne)
{
    auto table = timing_table();
    table.columns[3].name = "gflops";
    table.columns[3].values = std::vector<double>{10.0, 19.4, 12.0, 0.0};

    const auto pivoted = pivot_table(table, {0, 1, 2, 3}, "device", "gflops");

    ASSERT_EQ(pivoted.names(), (std::vector<std::string>{"n", "cpu_gflops", "cuda_gflops", "cuda/cpu"}));
    EXPECT_DOUBLE_EQ(std::get<std::vector<double>>(pivoted.columns[3].values)[0], 1.94);  // 19.4 / 10
}

TEST(TablePivot, RatioOptionPicksTheNumeratorAndDenominator)
{
    const auto pivoted = pivot_table(timing_table(), {0, 1, 2, 3}, "device", "seconds", "cuda/cpu");

    ASSERT_EQ(pivoted.names().back(), "cuda/cpu");
    EXPECT_DOUBLE_EQ(std::get<std::vector<double>>(pivoted.columns[3].values)[0], 0.25);  // 0.125 / 0.5
}

TEST(TablePivot, RatioOfValuesThePivotDoesNotHaveIsOneLineListingThem)
{
    EXPECT_THROW(
        {
            try {
                pivot_table(timing_table(), {0, 1, 2, 3}, "device", "seconds", "gpu/cpu");
            } catch (const UsageError& e) {
                EXPECT_STREQ(e.what(), "table: --ratio 'gpu/cpu': give two different values of device as A/B, one of: "
                                       "cpu, cuda");
                throw;
            }
        },
        UsageError);
    EXPECT_THROW(pivot_table(timing_table(), {0, 1, 2, 3}, "device", "seconds", "cpu/cpu"), UsageError);
    EXPECT_THROW(pivot_table(timing_table(), {0, 1, 2, 3}, "device", "seconds", "cpu"), UsageError);
}

TEST(TablePivot, OnlyTheGivenRowsAndNoRatioForOneValue)
{
    const auto pivoted = pivot_table(timing_table(), {0, 2}, "device", "seconds");

    EXPECT_EQ(pivoted.names(), (std::vector<std::string>{"n", "cpu_seconds"}));
    EXPECT_EQ(pivoted.task_count, 2u);
}

TEST(TablePivot, RefusesTwoTasksInOneCell)
{
    auto table = timing_table();
    std::get<std::vector<std::string>>(table.columns[2].values)[1] = "cpu";

    EXPECT_THROW(
        {
            try {
                pivot_table(table, {0, 1, 2, 3}, "device", "seconds");
            } catch (const UsageError& e) {
                EXPECT_STREQ(e.what(), "table: --pivot device: tasks 0 and 1 both have n=1000, device=cpu; keep one "
                                       "with --where");
                throw;
            }
        },
        UsageError);
}

TEST(TablePivot, RefusesAResultAsPivotAndTextAsValue)
{
    const auto table = timing_table();

    EXPECT_THROW(pivot_table(table, {0}, "seconds", "seconds"), UsageError);
    EXPECT_THROW(pivot_table(table, {0}, "n", "device"), UsageError);
    EXPECT_THROW(pivot_table(table, {0}, "devic", "seconds"), UsageError);
}

}  // namespace
}  // namespace shardrun::cli
