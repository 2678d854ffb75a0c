#include "runner/env/launch_check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace shardrun::env;

std::string no_plugins_asked() { return "(asked)"; }

TEST(LaunchProblem, OutsideSlurmAndUnderMpirunThereIsNone)
{
    const auto asked = [] { return std::string("none, pmi2, pmix"); };

    EXPECT_EQ(launch_problem(env_from_map({}), asked), "");
    // mpirun inside an allocation: the batch step's variables, no step id.
    EXPECT_EQ(launch_problem(env_from_map({{"SLURM_JOB_ID", "7"}}), asked), "");
    // mpirun's ranks on other nodes inherit an orted's step id, and carry Open MPI's variables.
    EXPECT_EQ(launch_problem(env_from_map({{"SLURM_JOB_ID", "7"}, {"SLURM_STEP_ID", "0"}, {"OMPI_COMM_WORLD_SIZE", "4"}}),
                             asked),
              "");
    // srun --mpi=pmix
    EXPECT_EQ(launch_problem(env_from_map({{"SLURM_JOB_ID", "7"}, {"SLURM_STEP_ID", "0"}, {"PMIX_RANK", "1"}}), asked),
              "");
}

TEST(LaunchProblem, SrunWithoutPmixIsOneLineNamingThePluginAndWhatToUse)
{
    const auto env = env_from_map({{"SLURM_JOB_ID", "42"}, {"SLURM_STEP_ID", "0"}, {"SLURM_MPI_TYPE", "none"}});

    const auto problem = launch_problem(env, [] { return std::string("none, pmi2, pmix"); });

    EXPECT_EQ(problem, "started by srun with --mpi=none in Slurm job 42, but this Open MPI starts only with PMIx: "
                       "use srun --mpi=pmix (srun --mpi=list offers: none, pmi2, pmix) or mpirun inside the allocation");
    EXPECT_EQ(problem.find('\n'), std::string::npos);
}

TEST(LaunchProblem, Pmi2IsRefusedTooAndAnUnknownPluginListIsLeftOut)
{
    const auto env = env_from_map({{"SLURM_JOB_ID", "42"}, {"SLURM_STEP_ID", "3"}, {"SLURM_MPI_TYPE", "pmi2"},
                                   {"PMI_RANK", "0"}, {"PMI_FD", "5"}});

    const auto problem = launch_problem(env, [] { return std::string(); });

    EXPECT_EQ(problem, "started by srun with --mpi=pmi2 in Slurm job 42, but this Open MPI starts only with PMIx: "
                       "use srun --mpi=pmix or mpirun inside the allocation");
}

TEST(LaunchProblem, AsksSrunOnlyWhenThereIsAProblem)
{
    int asked = 0;
    const auto count = [&asked] {
        ++asked;
        return no_plugins_asked();
    };

    launch_problem(env_from_map({}), count);
    launch_problem(env_from_map({{"SLURM_JOB_ID", "7"}, {"SLURM_STEP_ID", "0"}, {"PMIX_RANK", "0"}}), count);

    EXPECT_EQ(asked, 0);
}

}  // namespace
