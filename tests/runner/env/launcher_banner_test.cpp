#include "runner/env/launcher_banner.hpp"

#include <gtest/gtest.h>

namespace {

using namespace shardrun::env;

TEST(LauncherBanner, FollowsOnlyUnderOpenMpiMpirunWithoutQuiet)
{
    const std::string uri = "109248512.0;tcp://192.0.2.2:45949";
    EXPECT_TRUE(open_mpi_banner_follows(env_from_map({{"OMPI_MCA_orte_hnp_uri", uri}})));
    // mpirun -q passes orte_execute_quiet to its ranks.
    EXPECT_FALSE(open_mpi_banner_follows(env_from_map({{"OMPI_MCA_orte_hnp_uri", uri}, {"OMPI_MCA_orte_execute_quiet", "1"}})));
    EXPECT_FALSE(open_mpi_banner_follows(env_from_map({{"OMPI_MCA_orte_hnp_uri", uri}, {"OMPI_MCA_orte_execute_quiet", "true"}})));
    EXPECT_TRUE(open_mpi_banner_follows(env_from_map({{"OMPI_MCA_orte_hnp_uri", uri}, {"OMPI_MCA_orte_execute_quiet", "0"}})));
    // A singleton, or srun --mpi=pmix: no mpirun to print anything.
    EXPECT_FALSE(open_mpi_banner_follows(env_from_map({})));
    EXPECT_FALSE(open_mpi_banner_follows(env_from_map({{"PMIX_RANK", "0"}, {"SLURM_STEP_ID", "0"}})));
}

}  // namespace
