// The admission check's CPU half and its median (the CUDA half: tests/kernels/cuda_kernels_test.cpp).
#include "kernels/device_check/device_check.hpp"

#include <gtest/gtest.h>

#include "kernels/common/errors.hpp"

namespace shardrun::kernels {
namespace {

TEST(MedianSeconds, IsTheMiddleOrTheMeanOfTheTwoMiddles)
{
    double odd[] = {3, 1, 2};
    double even[] = {4, 1, 3, 2};

    EXPECT_DOUBLE_EQ(median_seconds(odd, 3), 2);
    EXPECT_DOUBLE_EQ(median_seconds(even, 4), 2.5);
    EXPECT_DOUBLE_EQ(median_seconds(nullptr, 0), 0);
}

TEST(DeviceCheckCpu, TimesAtLeastThreeProductsAndCopiesAndReportsTheirRates)
{
    for (const auto precision : {CheckPrecision::bf16, CheckPrecision::fp32, CheckPrecision::fp64}) {
        const auto timing = device_check(Device::cpu(), precision, 64, 1 << 20, 0.01);

        EXPECT_GE(timing.gemm_repeats, 3);
        EXPECT_LE(timing.gemm_repeats, 1000);
        EXPECT_GT(timing.gemm_seconds, 0);
        EXPECT_NEAR(timing.gemm_tflops, 2.0 * 64 * 64 * 64 / timing.gemm_seconds / 1e12, 1e-9 * timing.gemm_tflops);
        EXPECT_GE(timing.copy_repeats, 3);
        EXPECT_GT(timing.copy_seconds, 0);
        EXPECT_NEAR(timing.copy_gbps, (1 << 20) / timing.copy_seconds / 1e9, 1e-9 * timing.copy_gbps);
    }
}

TEST(DeviceCheckCpu, RefusesSizesBelowOne)
{
    EXPECT_THROW(device_check(Device::cpu(), CheckPrecision::fp32, 0, 1 << 20, 0.01), InvalidKernelArgument);
    EXPECT_THROW(device_check(Device::cpu(), CheckPrecision::fp32, 64, 0, 0.01), InvalidKernelArgument);
}

}  // namespace
}  // namespace shardrun::kernels
