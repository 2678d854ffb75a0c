#include "runner/job/task_space.hpp"

#include <gtest/gtest.h>

#include "runner/job/job_parser.hpp"

namespace shardrun::job {
namespace {

JobSpec job_of(const std::string& text) { return parse_job("job.yaml", text, {}, {"noop"}); }

TEST(TaskSpace, WithoutDataEachPointIsOneTask)
{
    const auto spec = job_of("task: noop\nparams: {k: 7}\nsweep: {a: [1, 2, 3]}\n");

    const auto space = TaskSpace::of(spec, spec.data.items);

    EXPECT_EQ(space.size(), 3u);
    EXPECT_EQ(space.chunks(), 1u);
    EXPECT_FALSE(space.has_ranges());
    EXPECT_FALSE(space.range_of(2).has_value());
    EXPECT_EQ(space.params_of(2).integer("a"), 3);
    EXPECT_EQ(space.params_of(2).integer("k"), 7);
    EXPECT_EQ(space.items_in(0, 3), 0u);
}

TEST(TaskSpace, DataChunksWithTheLastOneShorter)
{
    const auto spec = job_of("task: noop\ndata: {items: 10, chunk: 4}\n");

    const auto space = TaskSpace::of(spec, spec.data.items);

    ASSERT_EQ(space.size(), 3u);
    EXPECT_EQ(space.chunks(), 3u);
    EXPECT_TRUE(space.has_ranges());
    EXPECT_EQ(space.range_of(0)->start, 0u);
    EXPECT_EQ(space.range_of(0)->end, 4u);
    EXPECT_EQ(space.range_of(1)->start, 4u);
    EXPECT_EQ(space.range_of(1)->end, 8u);
    EXPECT_EQ(space.range_of(2)->start, 8u);
    EXPECT_EQ(space.range_of(2)->end, 10u);
}

TEST(TaskSpace, IdIsPointTimesChunksPlusChunk)
{
    const auto spec = job_of("task: noop\nsweep: {a: [10, 20]}\ndata: {items: 10, chunk: 4}\n");

    const auto space = TaskSpace::of(spec, spec.data.items);

    ASSERT_EQ(space.size(), 6u);
    EXPECT_EQ(space.sweep_points(), 2u);
    EXPECT_EQ(space.point_of(4), 1u);
    EXPECT_EQ(space.params_of(4).integer("a"), 20);
    EXPECT_EQ(space.range_of(4)->start, 4u);
    EXPECT_EQ(space.range_of(4)->end, 8u);
    EXPECT_EQ(space.params_of(2).integer("a"), 10);
    EXPECT_EQ(space.range_of(2)->end, 10u);
}

TEST(TaskSpace, ItemsInMatchesTheSumOfRanges)
{
    const auto spec = job_of("task: noop\nsweep: {a: [1, 2, 3]}\ndata: {items: 10, chunk: 4}\n");
    const auto space = TaskSpace::of(spec, spec.data.items);

    for (std::uint64_t first = 0; first <= space.size(); ++first) {
        for (std::uint64_t last = first; last <= space.size(); ++last) {
            std::uint64_t expected = 0;
            for (auto id = first; id < last; ++id) expected += space.range_of(id)->end - space.range_of(id)->start;

            const auto items = space.items_in(first, last);

            EXPECT_EQ(items, expected) << "[" << first << ", " << last << ")";
        }
    }
}

TEST(TaskSpace, ItemsOverrideComesFromTheDataInput)
{
    const auto spec = job_of("task: noop\ndata: {input: 'x.h5:/d', chunk: 5}\n");

    const auto space = TaskSpace::of(spec, 12);

    EXPECT_EQ(space.size(), 3u);
    EXPECT_EQ(space.range_of(2)->end, 12u);
}

TEST(TaskSpace, DataInputWithoutRowsHasNoTasks)
{
    // data.input names a dataset whose first dimension is 0: no task may run without a range.
    const auto spec = job_of("task: noop\nsweep: {a: [1, 2]}\ndata: {input: 'x.h5:/d', chunk: 5}\n");

    const auto space = TaskSpace::of(spec, 0);

    EXPECT_EQ(space.size(), 0u) << "tasks of a data job would run with no range";
}

TEST(TaskSpace, UpdateParamsOverwritesTheSweptValues)
{
    const auto spec = job_of("task: noop\nparams: {k: 1}\nsweep: {a: [1, 2], b: [x, y]}\n");
    const auto space = TaskSpace::of(spec, spec.data.items);
    auto params = space.params_of(0);

    space.update_params(3, params);

    EXPECT_EQ(params.entries(), space.params_of(3).entries());
}

TEST(TaskSpace, BillionTaskSpaceIsComputedOnDemand)
{
    const auto spec = job_of("task: noop\nsweep: {i: {range: [0, 1000000, 1]}}\ndata: {items: 1000, chunk: 1}\n");

    const auto space = TaskSpace::of(spec, spec.data.items);

    EXPECT_EQ(space.size(), 1000000000u);
    EXPECT_EQ(space.params_of(999999999).integer("i"), 999999);
    EXPECT_EQ(space.range_of(999999999)->start, 999u);
    EXPECT_EQ(space.items_in(0, space.size()), 1000000000u);
}

}  // namespace
}  // namespace shardrun::job
