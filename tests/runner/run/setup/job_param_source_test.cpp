// JobParamSource: /params and /ranges computed from the task space a block at a time give
// every task the values and range of its own id, across block and sweep-point boundaries.
#include "runner/run/setup/job_param_source.hpp"

#include <gtest/gtest.h>

#include "tests/runner/run/prepared_job_for_test.hpp"

namespace shardrun::run {
namespace {

PreparedJob prepared(const std::string& text) { return testing::prepared_job(text, "params.yaml"); }

TEST(JobParamSource, ColumnTypesWidenOverTheWholeSweep)
{
    // An axis holds one kind of value since issue 35, point 5 ([1, b] is exit 2): ints among floats widen.
    const auto job = prepared("task: noop\nsweep: {n: [1, 2], x: [1, 2.5], s: [a, b]}\n");
    const JobParamSource source(job);
    ASSERT_EQ(source.columns().size(), 3u);
    for (const auto& column : source.columns()) {
        const auto expected = column.name == "n" ? io::ParamType::int64
                              : column.name == "x" ? io::ParamType::float64
                                                   : io::ParamType::text;
        EXPECT_EQ(column.type, expected) << column.name;
    }
    EXPECT_FALSE(source.has_ranges());
    EXPECT_EQ(source.task_count(), 8u);
}

TEST(JobParamSource, BlocksMatchEveryTaskAcrossBlockAndPointBoundaries)
{
    // 3 sweep points x 30,001 chunks: 90,003 tasks, more than one block, points mid-block.
    const auto job = prepared("task: noop\nsweep: {lr: [0.5, 1.5, 2.5], tag: [a]}\ndata: {items: 60001, chunk: 2}\n");
    const JobParamSource source(job);
    ASSERT_EQ(source.task_count(), 90003u);
    ASSERT_TRUE(source.has_ranges());
    std::vector<io::ParamColumn> block;
    io::TaskRanges ranges;
    const std::size_t lr = source.columns()[0].name == "lr" ? 0 : 1;
    const std::uint64_t block_rows = 65536;  // the master's rows a block (io::stream_block_rows())
    for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{30000}, std::uint64_t{90003 - 7}}) {
        const std::size_t count = first + block_rows <= 90003 ? block_rows : 90003 - first;
        source.read(first, count, block, ranges);
        ASSERT_EQ(ranges.start.size(), count);
        const auto& values = std::get<std::vector<double>>(block[lr].values);
        ASSERT_EQ(values.size(), count);
        for (std::size_t i = 0; i < count; ++i) {
            const auto id = first + i;
            EXPECT_EQ(values[i], job.space->params_of(id).number("lr")) << id;
            const auto range = *job.space->range_of(id);
            EXPECT_EQ(ranges.start[i], static_cast<std::int64_t>(range.start)) << id;
            EXPECT_EQ(ranges.end[i], static_cast<std::int64_t>(range.end)) << id;
            if (HasFailure()) return;
        }
    }
}

}  // namespace
}  // namespace shardrun::run
