#include "runner/env/scheduler.hpp"

#include <gtest/gtest.h>

#include "runner/errors.hpp"

namespace shardrun::env {
namespace {

ArrayPosition array_of(std::map<std::string, std::string> vars, ArrayOverrides overrides = {})
{
    return resolve_array(detect_scheduler(env_from_map(std::move(vars))), overrides);
}

TEST(Scheduler, PlainProcessIsElementZeroOfOne)
{
    const auto info = detect_scheduler(env_from_map({}));

    const auto array = resolve_array(info, {});

    EXPECT_EQ(info.name, "none");
    EXPECT_EQ(array.index, 0);
    EXPECT_EQ(array.count, 1);
}

TEST(Scheduler, MpirunIsDetectedFromOpenMpiVariables)
{
    const auto info = detect_scheduler(env_from_map(
        {{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}));

    EXPECT_EQ(info.name, "mpirun");
    EXPECT_EQ(info.launcher, "open-mpi");
    EXPECT_EQ(info.launcher_rank, 2);
    EXPECT_EQ(info.launcher_local_rank, 1);
}

TEST(Scheduler, OpenMpiSingletonIsNoLauncher)
{
    // `shardrun run` by itself: after MPI_Init, Open MPI's singleton has PMIx variables of its own.
    const auto info = detect_scheduler(env_from_map({{"OMPI_MCA_ess", "singleton"}, {"PMIX_RANK", "0"}, {"PMIX_NAMESPACE", "9"}}));

    EXPECT_EQ(info.name, "none");
    EXPECT_EQ(info.launcher, "");
}

TEST(Scheduler, MpirunInsideABatchScriptKeepsItsOwnRankNumbers)
{
    const auto info = detect_scheduler(env_from_map({{"SLURM_JOB_ID", "12"}, {"SLURM_PROCID", "0"}, {"SLURM_LOCALID", "0"},
                                                     {"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "3"},
                                                     {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}));

    EXPECT_EQ(info.name, "slurm");
    EXPECT_EQ(info.launcher, "open-mpi");
    EXPECT_EQ(info.launcher_rank, 3);
    EXPECT_EQ(info.launcher_local_rank, 1);
}

TEST(Scheduler, MpichHydraLocalRank)
{
    const auto info = detect_scheduler(env_from_map({{"PMI_RANK", "5"}, {"MPI_LOCALRANKID", "3"}}));

    EXPECT_EQ(info.launcher, "mpich-hydra");
    EXPECT_EQ(info.launcher_rank, 5);
    EXPECT_EQ(info.launcher_local_rank, 3);
}

TEST(Scheduler, SlurmArrayIndexAndCount)
{
    const auto array = array_of({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "8"}});

    EXPECT_EQ(array.index, 3);
    EXPECT_EQ(array.count, 8);
}

TEST(Scheduler, SlurmArrayStartingAtOneWithStepIsMadeZeroBased)
{
    const auto array = array_of({{"SLURM_JOB_ID", "77"},
                                 {"SLURM_ARRAY_TASK_ID", "7"},
                                 {"SLURM_ARRAY_TASK_MIN", "1"},
                                 {"SLURM_ARRAY_TASK_MAX", "9"},
                                 {"SLURM_ARRAY_TASK_STEP", "2"}});

    EXPECT_EQ(array.index, 3);  // ids 1,3,5,7,9
    EXPECT_EQ(array.count, 5);
}

TEST(Scheduler, SlurmRanksAndNodes)
{
    const auto info = detect_scheduler(env_from_map({{"SLURM_JOB_ID", "12"},
                                                     {"SLURM_PROCID", "6"},
                                                     {"SLURM_LOCALID", "2"},
                                                     {"SLURM_NODEID", "1"},
                                                     {"SLURM_JOB_NUM_NODES", "2"}}));

    EXPECT_EQ(info.name, "slurm");
    EXPECT_EQ(info.job_id, "12");
    EXPECT_EQ(info.launcher, "srun");
    EXPECT_EQ(info.launcher_rank, 6);
    EXPECT_EQ(info.launcher_local_rank, 2);
    EXPECT_EQ(info.node_index, 1);
    EXPECT_EQ(info.node_count, 2);
}

TEST(Scheduler, AwsBatchArray)
{
    const auto array = array_of({{"AWS_BATCH_JOB_ARRAY_INDEX", "5"}, {"AWS_BATCH_JOB_ARRAY_SIZE", "10"}});

    EXPECT_EQ(array.index, 5);
    EXPECT_EQ(array.count, 10);
}

TEST(Scheduler, AwsBatchMultiNode)
{
    const auto info = detect_scheduler(env_from_map({{"AWS_BATCH_JOB_ID", "abc#1"},
                                                     {"AWS_BATCH_JOB_NODE_INDEX", "1"},
                                                     {"AWS_BATCH_JOB_NUM_NODES", "4"},
                                                     {"AWS_BATCH_JOB_MAIN_NODE_INDEX", "0"}}));

    EXPECT_EQ(info.name, "aws-batch");
    EXPECT_EQ(info.node_index, 1);
    EXPECT_EQ(info.node_count, 4);
    EXPECT_EQ(info.main_node_index, 0);
    EXPECT_EQ(resolve_array(info, {}).count, 1);
}

TEST(Scheduler, GoogleCloudBatch)
{
    const auto array = array_of({{"BATCH_TASK_INDEX", "2"}, {"BATCH_TASK_COUNT", "6"}});

    EXPECT_EQ(array.index, 2);
    EXPECT_EQ(array.count, 6);
}

TEST(Scheduler, PbsIndexNeedsArrayCount)
{
    const std::map<std::string, std::string> vars = {{"PBS_JOBID", "9[4].pbs"}, {"PBS_ARRAY_INDEX", "4"}};

    const auto array = array_of(vars, {std::nullopt, 10});

    EXPECT_EQ(detect_scheduler(env_from_map(vars)).name, "pbs");
    EXPECT_EQ(array.index, 4);
    EXPECT_EQ(array.count, 10);
    EXPECT_THROW(array_of(vars), UsageError);
}

TEST(Scheduler, LsfIndex)
{
    const auto info = detect_scheduler(env_from_map({{"LSB_JOBID", "31"}, {"LSB_JOBINDEX", "2"}}));

    EXPECT_EQ(info.name, "lsf");
    EXPECT_EQ(info.array_index, 2);
    EXPECT_EQ(resolve_array(info, {std::nullopt, 4}).index, 2);
}

TEST(Scheduler, OverridesWinOverEnvironment)
{
    const auto array = array_of({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}, {1, 2});

    EXPECT_EQ(array.index, 1);
    EXPECT_EQ(array.count, 2);
    EXPECT_EQ(array.source, "--array-index/--array-count");
}

TEST(Scheduler, IndexAtOrBeyondCountIsAClearError)
{
    try {
        array_of({{"AWS_BATCH_JOB_ARRAY_INDEX", "10"}, {"AWS_BATCH_JOB_ARRAY_SIZE", "10"}});
        FAIL() << "expected UsageError";
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find("outside 0..9"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("AWS_BATCH_JOB_ARRAY_INDEX"), std::string::npos);
        // The position came from the scheduler: the options are the way to run this element by hand.
        EXPECT_NE(std::string(error.what()).find("or pass --array-index/--array-count"), std::string::npos) << error.what();
    }
}

TEST(Scheduler, SlurmIndexBeyondCountIsAnError)
{
    EXPECT_THROW(array_of({{"SLURM_ARRAY_TASK_ID", "8"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}), UsageError);
}

TEST(Scheduler, OverrideIndexBeyondCountIsAnError)
{
    EXPECT_THROW(array_of({}, {5, 5}), UsageError);
    EXPECT_THROW(array_of({}, {0, 0}), UsageError);
}

TEST(Scheduler, NonIntegerVariableIsAnError)
{
    EXPECT_THROW(detect_scheduler(env_from_map({{"BATCH_TASK_INDEX", "two"}})), UsageError);
}

TEST(Scheduler, IdsAreTheSetVariablesOfTheList)
{
    const auto info = detect_scheduler(env_from_map({{"SLURM_JOB_ID", "4242"},
                                                     {"SLURM_ARRAY_JOB_ID", "4240"},
                                                     {"SLURM_ARRAY_TASK_ID", "2"},
                                                     {"SLURM_ARRAY_TASK_COUNT", "3"},
                                                     {"SLURM_CLUSTER_NAME", "c1"}}));

    const std::map<std::string, std::string> expected{
        {"SLURM_JOB_ID", "4242"}, {"SLURM_ARRAY_JOB_ID", "4240"}, {"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_CLUSTER_NAME", "c1"}};
    EXPECT_EQ(info.ids, expected);
}

TEST(Scheduler, NoSchedulerHasNoIds)
{
    EXPECT_TRUE(detect_scheduler(env_from_map({{"OMPI_COMM_WORLD_SIZE", "2"}})).ids.empty());
}

}  // namespace
}  // namespace shardrun::env
