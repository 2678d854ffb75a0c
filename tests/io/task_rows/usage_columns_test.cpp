#include "io/task_rows/usage_columns.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::io {
namespace {

TaskRecord record(std::uint64_t id, double cpu_time, std::int64_t mem_peak)
{
    TaskRecord r;
    r.task_id = id;
    r.status = TaskStatus::ok;
    r.end = 1.0;
    r.cpu_time = cpu_time;
    r.mem_peak = mem_peak;
    return r;
}

TaskRows rows_of(std::initializer_list<TaskRecord> records)
{
    TaskRows rows;
    for (const auto& r : records) rows.append(r, {}, {});
    return rows;
}

hdf5::File create_file(const testing::TempDir& dir)
{
    hdf5::silence_hdf5_errors();  // as every io entry point does: HDF5's own stack goes unprinted
    return SHARDRUN_H5_OPEN(File, H5Fcreate(dir.file("f.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
}

TEST(UsageColumns, SegmentCompoundRoundTripsMeasuredAndUnmeasuredRows)
{
    testing::TempDir dir;
    const auto written = rows_of({record(0, 1.25, 200'000'000), record(1, std::nan(""), -1)});
    auto file = create_file(dir);

    write_usage_compound(file.get(), written);
    auto read = rows_of({record(0, 0, 0), record(1, 0, 0)});
    read_usage_compound(file.get(), read);

    EXPECT_EQ(read.cpu_time[0], 1.25);
    EXPECT_EQ(read.mem_peak[0], 200'000'000);
    EXPECT_TRUE(std::isnan(read.cpu_time[1]));
    EXPECT_EQ(read.mem_peak[1], -1);
}

TEST(UsageColumns, ASegmentWithoutMeasuredRowsHasNoCompoundAndReadsUnmeasured)
{
    testing::TempDir dir;
    const auto written = rows_of({record(0, std::nan(""), -1)});
    auto file = create_file(dir);

    write_usage_compound(file.get(), written);
    auto read = rows_of({record(0, 3.0, 3)});
    read_usage_compound(file.get(), read);

    EXPECT_FALSE(any_usage(written));
    EXPECT_FALSE(hdf5::has_link(file.get(), "usage"));
    EXPECT_TRUE(std::isnan(read.cpu_time[0]));
    EXPECT_EQ(read.mem_peak[0], -1);
}

TEST(UsageColumns, ChecksumCoversMeasuredValuesOnly)
{
    const auto a = rows_of({record(0, 1.0, 10)});
    const auto b = rows_of({record(0, 2.0, 10)});
    const auto unmeasured = rows_of({record(0, std::nan(""), -1)});
    auto without_columns = unmeasured;
    without_columns.cpu_time.clear();
    without_columns.mem_peak.clear();

    EXPECT_NE(a.columns_checksum(), b.columns_checksum());
    // A segment written before the columns existed checks as it did then.
    EXPECT_EQ(unmeasured.columns_checksum(), without_columns.columns_checksum());
}

TEST(UsageColumns, TheWinningRowBringsItsUsage)
{
    auto rows = rows_of({record(0, std::nan(""), -1)});
    rows.status[0] = static_cast<std::int8_t>(TaskStatus::failed);
    const auto rerun = rows_of({record(0, 0.5, 1234)});

    EXPECT_TRUE(rows.take_if_better(0, rerun, 0));

    EXPECT_EQ(rows.cpu_time[0], 0.5);
    EXPECT_EQ(rows.mem_peak[0], 1234);
    EXPECT_EQ(rows.record(0).mem_peak, 1234);
}

TEST(UsageColumns, TasksGroupWithoutTheColumnsReadsUnmeasured)
{
    testing::TempDir dir;
    auto file = create_file(dir);
    auto tasks = hdf5::ensure_group(file.get(), "tasks");
    TaskRows rows;

    read_usage_block(tasks.get(), 0, 2, rows);

    ASSERT_EQ(rows.cpu_time.size(), 2U);
    EXPECT_TRUE(std::isnan(rows.cpu_time[1]));
    EXPECT_EQ(rows.mem_peak, (std::vector<std::int64_t>{-1, -1}));
}

}  // namespace
}  // namespace shardrun::io
