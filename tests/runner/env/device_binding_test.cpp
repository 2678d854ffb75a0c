#include "runner/env/device_binding.hpp"

#include <gtest/gtest.h>

namespace shardrun::env {
namespace {

TEST(DeviceBinding, NoDeviceMeansCpu)
{
    const auto binding = bind_device(0, std::nullopt, 3, "no driver");

    EXPECT_FALSE(binding.cuda);
    EXPECT_EQ(binding.label(), "cpu");
    EXPECT_EQ(binding.reason, "no driver");
}

TEST(DeviceBinding, LocalRankModuloDeviceCount)
{
    const auto binding = bind_device(4, std::nullopt, 6, "");

    EXPECT_TRUE(binding.cuda);
    EXPECT_EQ(binding.ordinal, 2);
    EXPECT_EQ(binding.visible_id, "2");
    EXPECT_EQ(binding.label(), "cuda:2");
}

TEST(DeviceBinding, SchedulerNarrowedVisibleDevicesToOne)
{
    const auto binding = bind_device(1, std::string("5"), 3, "");

    EXPECT_EQ(binding.ordinal, 0);
    EXPECT_EQ(binding.visible_id, "5");
}

TEST(DeviceBinding, VisibleListIsIndexedByOrdinal)
{
    const auto binding = bind_device(2, std::string("4,7"), 1, "");

    EXPECT_EQ(binding.ordinal, 1);
    EXPECT_EQ(binding.visible_id, "7");
}

TEST(PackDevices, LocalRankGetsItsBlockOfTheNode)
{
    const auto packed = pack_devices(8, std::nullopt, 3, 2);

    EXPECT_TRUE(packed.problem.empty());
    EXPECT_EQ(packed.binding.ordinal, 6);
    EXPECT_EQ(packed.binding.count, 2);
    EXPECT_EQ(packed.binding.visible_id, "6,7");
    EXPECT_EQ(packed.binding.label(), "cuda:6+7");
}

TEST(PackDevices, MapsThroughTheVisibleList)
{
    const auto packed = pack_devices(4, std::string("4,5,6,7"), 1, 2);

    EXPECT_EQ(packed.binding.visible_id, "6,7");
}

TEST(PackDevices, TakesTheLauncherNamedSet)
{
    const auto packed = pack_devices(3, std::string("1,4,5"), 2, 3);

    EXPECT_EQ(packed.binding.ordinal, 0);
    EXPECT_EQ(packed.binding.visible_id, "1,4,5");
}

TEST(PackDevices, MoreThanTheNodeHasIsAProblemNotAWrapAround)
{
    const auto packed = pack_devices(8, std::nullopt, 4, 2);

    EXPECT_FALSE(packed.binding.cuda);
    EXPECT_NE(packed.problem.find("needs GPUs 8..9 for local rank 4, but this node shows 8"), std::string::npos)
        << packed.problem;
}

}  // namespace
}  // namespace shardrun::env
