#include "runner/tasks/thread_variables.hpp"

#include <gtest/gtest.h>

namespace shardrun::tasks {
namespace {

using Entries = std::vector<std::string>;

TEST(ThreadVariables, SetsEveryPoolToTheShare)
{
    EXPECT_EQ(thread_variables(4, {"PATH=/usr/bin"}, {}),
              (Entries{"SHARDRUN_CPU_THREADS=4", "OMP_NUM_THREADS=4", "MKL_NUM_THREADS=4", "OPENBLAS_NUM_THREADS=4",
                       "BLIS_NUM_THREADS=4", "NUMEXPR_NUM_THREADS=4"}));
}

TEST(ThreadVariables, TheEnvironmentsChoiceWinsWhole)
{
    // One variable set by the user (mpirun -x, the job script): shardrun sets none of the others,
    // since MKL and OpenBLAS fall back to OMP_NUM_THREADS.
    EXPECT_EQ(thread_variables(4, {"OMP_NUM_THREADS=8"}, {}), (Entries{"SHARDRUN_CPU_THREADS=4"}));
    EXPECT_EQ(thread_variables(4, {"OPENBLAS_NUM_THREADS=1"}, {}), (Entries{"SHARDRUN_CPU_THREADS=4"}));
}

TEST(ThreadVariables, TheJobsChoiceWinsWhole)
{
    EXPECT_EQ(thread_variables(2, {}, {{"MKL_NUM_THREADS", "1"}}), (Entries{"SHARDRUN_CPU_THREADS=2"}));
}

TEST(ThreadVariables, ANameThatOnlyStartsLikeOneIsNotOne)
{
    EXPECT_EQ(thread_variables(1, {"OMP_NUM_THREADS_EXTRA=3"}, {{"OMP", "2"}}).size(), 6U);
}

TEST(ThreadVariables, UnknownShareSetsNothing)
{
    EXPECT_TRUE(thread_variables(0, {}, {}).empty());
}

}  // namespace
}  // namespace shardrun::tasks
