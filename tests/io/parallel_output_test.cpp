// Both layouts under mpiexec at 1, 2 and 4 ranks: interleaved ids, a commit per round
// (ranks with nothing still join), rank 0 finalizes and reads every row back, with each
// task's /tasks/message and /attempts rows (layout single: rank 0 writes those alone after
// each collective commit).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include "io/job_output.hpp"
#include "output_test_support.hpp"
#include "parallel_run.hpp"

namespace shardrun::io {
namespace {

int world_rank()
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

class ParallelOutput : public ::testing::TestWithParam<Layout> {};

TEST_P(ParallelOutput, EveryRowOfEveryRankReachesTheMaster)
{
    const auto dir = testing::shared_scratch_dir();
    OutputOptions options{dir + "/results.h5", GetParam()};

    const auto summary = testing::run_parallel_job(options, 101);

    if (world_rank() != 0) return;
    EXPECT_TRUE(summary.complete);
    EXPECT_EQ(summary.ok + summary.failed, 101u);
    EXPECT_EQ(testing::check_master(options.path, 101), "");
    EXPECT_EQ(testing::check_reasons(options.path, 101), "");
    const hid_t file = H5Fopen(options.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto ranks = testing::read_ints(file, "tasks/rank");
    for (std::size_t id = 0; id < ranks.size(); ++id) EXPECT_LT(ranks[id], size) << id;
    EXPECT_EQ(testing::read_doubles(file, "params/alpha")[100], 50.0);
    H5Fclose(file);
}

TEST_P(ParallelOutput, ResumeReRunsOnlyFailedTasksAndKeepsEveryRow)
{
    const auto dir = testing::shared_scratch_dir();
    OutputOptions options{dir + "/results.h5", GetParam()};
    testing::run_parallel_job(options, 40);
    options.resume = true;

    const auto summary = testing::run_parallel_job(options, 40);

    if (world_rank() != 0) return;
    std::uint64_t ok = 0;
    for (std::uint64_t id = 0; id < 40; ++id) ok += !testing::fails(id);
    EXPECT_EQ(summary.ok, ok);
    EXPECT_TRUE(summary.complete);
    EXPECT_EQ(testing::check_master(options.path, 40), "");
    // The re-run failed tasks made the same attempts (same start, same rank): each is kept once.
    EXPECT_EQ(testing::check_reasons(options.path, 40), "");
}

TEST_P(ParallelOutput, MergeOfTwoArrayElementsEqualsTheWholeJob)
{
    const auto dir = testing::shared_scratch_dir();
    const OutputOptions options{dir + "/results.h5", GetParam()};
    testing::run_parallel_job(options, 61, 2, 0);
    testing::run_parallel_job(options, 61, 2, 1);

    if (world_rank() != 0) return;
    const auto report = merge_output(options.path);

    EXPECT_EQ(report.exit_code(), 0);
    EXPECT_TRUE(report.summary.complete);
    EXPECT_EQ(testing::check_master(options.path, 61), "");
    EXPECT_EQ(testing::check_reasons(options.path, 61), "");
}

INSTANTIATE_TEST_SUITE_P(Layouts, ParallelOutput, ::testing::Values(Layout::shards, Layout::single),
                         [](const auto& param_info) { return param_info.param == Layout::shards ? "shards" : "single"; });

}  // namespace
}  // namespace shardrun::io
