#include "runner/cli/command_selftest.hpp"

#include <gtest/gtest.h>

#include <iostream>

#include "kernels/common/cuda_runtime.hpp"
#include "kernels/selftest/selftest.hpp"
#include "runner/errors.hpp"

namespace {

using shardrun::cli::SelftestCommand;

TEST(SelftestCommand, CpuChecksPassAndPrintATable)
{
    SelftestCommand command;
    ASSERT_TRUE(command.setup({"--device", "cpu"}));

    testing::internal::CaptureStdout();
    const int code = command.run();
    const auto output = testing::internal::GetCapturedStdout();

    std::cout << output;  // the table, for whoever reads the test log
    EXPECT_EQ(code, 0) << output;
    EXPECT_NE(output.find("kernel"), std::string::npos);
    EXPECT_NE(output.find("heat2d"), std::string::npos);
    const auto all_passed = "all " + std::to_string(shardrun::kernels::selftest_cases_list().size()) + " checks passed";
    EXPECT_NE(output.find(all_passed), std::string::npos) << output;
}

TEST(SelftestCommand, WithoutAGpuSaysSoAndChecksTheCpu)
{
    if (shardrun::kernels::query_cuda_runtime().device_count > 0) GTEST_SKIP() << "this machine has a GPU";
    SelftestCommand all, cuda_only;
    ASSERT_TRUE(all.setup({}));
    ASSERT_TRUE(cuda_only.setup({"--device", "cuda"}));

    testing::internal::CaptureStdout();
    const int code = all.run();
    const auto output = testing::internal::GetCapturedStdout();

    EXPECT_EQ(code, 0);
    EXPECT_NE(output.find("no CUDA device"), std::string::npos) << output;
    EXPECT_NE(output.find("cpu"), std::string::npos);
    testing::internal::CaptureStdout();
    EXPECT_THROW(cuda_only.run(), shardrun::UsageError);
    testing::internal::GetCapturedStdout();
}

TEST(SelftestCommand, RefusesAnUnknownDevice)
{
    SelftestCommand command;

    EXPECT_THROW(command.setup({"--device", "tpu"}), shardrun::UsageError);
}

}  // namespace
