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

}  // namespace
}  // namespace shardrun::env
