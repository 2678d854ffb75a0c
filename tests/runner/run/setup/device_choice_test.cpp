#include "runner/run/setup/device_choice.hpp"

#include <gtest/gtest.h>

namespace shardrun::run {
namespace {

env::DeviceBinding gpu_rank()
{
    env::DeviceBinding binding;
    binding.cuda = true;
    binding.ordinal = 0;
    binding.visible_id = "3";
    return binding;
}

env::DeviceBinding cpu_rank()
{
    env::DeviceBinding binding;
    binding.reason = "no CUDA backend in this build";
    return binding;
}

TEST(TaskDevice, NoParamOrAutoKeepsTheRanksBinding)
{
    const auto rank = gpu_rank();
    const job::ParamValue automatic = std::string("auto");

    EXPECT_EQ(task_device(rank, nullptr).binding, &rank);
    EXPECT_EQ(task_device(rank, &automatic).binding, &rank);
    EXPECT_TRUE(task_device(rank, &automatic).problem.empty());
}

TEST(TaskDevice, CpuRunsOnTheCpuOfAGpuRank)
{
    const job::ParamValue cpu = std::string("cpu");

    const auto chosen = task_device(gpu_rank(), &cpu);

    EXPECT_FALSE(chosen.binding->cuda);
    EXPECT_EQ(chosen.binding->label(), "cpu");
    EXPECT_TRUE(chosen.problem.empty());
}

TEST(TaskDevice, CudaOnAGpuRankUsesItsGpu)
{
    const auto rank = gpu_rank();
    const job::ParamValue cuda = std::string("cuda");

    const auto chosen = task_device(rank, &cuda);

    EXPECT_EQ(chosen.binding, &rank);
    EXPECT_TRUE(chosen.problem.empty());
}

TEST(TaskDevice, CudaOnACpuRankIsAProblemNeverTheCpu)
{
    const job::ParamValue cuda = std::string("cuda");

    const auto chosen = task_device(cpu_rank(), &cuda);

    EXPECT_NE(chosen.problem.find("params.device: cuda, but this rank has no CUDA device (no CUDA backend in this "
                                  "build); it is not run on the CPU instead"),
              std::string::npos)
        << chosen.problem;
}

TEST(TaskDevice, AnUnknownNameIsAProblem)
{
    const job::ParamValue gpu = std::string("gpu");

    const auto chosen = task_device(gpu_rank(), &gpu);

    EXPECT_NE(chosen.problem.find("'gpu' is not allowed"), std::string::npos) << chosen.problem;
}

}  // namespace
}  // namespace shardrun::run
