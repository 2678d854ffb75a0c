#include "runner/run/setup/auto_device_route.hpp"

#include <gtest/gtest.h>

#include "runner/run/loop/given_back.hpp"
#include "runner/tasks/auto_device_rules.hpp"

namespace shardrun::run {
namespace {

job::JobSpec spec_of(std::string task)
{
    job::JobSpec spec;
    spec.task = std::move(task);
    return spec;
}

job::ParamMap params(std::initializer_list<std::pair<const char*, std::int64_t>> values)
{
    job::ParamMap map;
    for (const auto& [name, value] : values) map.set(name, value);
    return map;
}

TEST(AutoSendsToCpu, OnlyTasksThatLeftTheChoiceToAutoOnARankWithAGpu)
{
    const job::ParamValue automatic = std::string("auto"), cuda = std::string("cuda"), cpu = std::string("cpu");
    EXPECT_TRUE(auto_sends_to_cpu(true, nullptr, true));
    EXPECT_TRUE(auto_sends_to_cpu(true, &automatic, true));
    EXPECT_FALSE(auto_sends_to_cpu(true, &cuda, true)) << "cuda is the task's own choice";
    EXPECT_FALSE(auto_sends_to_cpu(true, &cpu, true)) << "already on the CPU by its own choice";
    EXPECT_FALSE(auto_sends_to_cpu(true, nullptr, false));
    EXPECT_FALSE(auto_sends_to_cpu(false, nullptr, true)) << "without a GPU every task is on the CPU anyway";
}

TEST(RouteOf, GemmSmallOnTheCpuLargeOnTheGpuWithDefaultsFromItsTable)
{
    const auto route = route_of(spec_of("gemm"));
    ASSERT_TRUE(route);
    EXPECT_EQ(route->origin, "gemm's built-in rule");
    const auto below = tasks::gemm_cpu_below_n;
    EXPECT_TRUE(routes_to_cpu(*route, params({{"n", below - 1}}))) << "m and k default to n";
    EXPECT_FALSE(routes_to_cpu(*route, params({{"n", below}})));
    EXPECT_FALSE(routes_to_cpu(*route, params({{"n", 8}, {"k", below * 4}}))) << "one large dimension is GPU work";
    EXPECT_EQ(routes_to_cpu(*route, params({})), 512 < below) << "n defaults to 512";
}

TEST(RouteOf, BlurByItsSidesWidthFollowingHeight)
{
    const auto route = route_of(spec_of("blur"));
    ASSERT_TRUE(route);
    EXPECT_TRUE(routes_to_cpu(*route, params({{"height", 2048}})));
    EXPECT_FALSE(routes_to_cpu(*route, params({{"height", tasks::blur_cpu_below_side}})));
    EXPECT_FALSE(routes_to_cpu(*route, params({{"height", 64}, {"width", tasks::blur_cpu_below_side * 2}})));
}

TEST(RouteOf, TheJobsRuleWinsAndOtherKindsOrDevicesHaveNone)
{
    auto spec = spec_of("exec");
    EXPECT_FALSE(route_of(spec)) << "exec has no built-in rule";
    spec.params.set("n", std::int64_t{5});
    spec.auto_device_cpu_if = "n < 1000";
    const auto route = route_of(spec);
    ASSERT_TRUE(route);
    EXPECT_EQ(route->origin, "auto_device.cpu_if in the job");
    EXPECT_TRUE(routes_to_cpu(*route, params({{"n", 999}})));
    EXPECT_FALSE(routes_to_cpu(*route, params({{"n", 1000}})));
    spec.device = job::DevicePreference::cuda;
    EXPECT_FALSE(route_of(spec)) << "only device: auto routes";
    EXPECT_FALSE(route_of(spec_of("heat2d")));
    const auto cpu = routed_cpu_binding(*route);
    EXPECT_EQ(cpu.label(), "cpu");
    EXPECT_TRUE(cpu.hide_gpus);
}

TEST(GivenBack, BatchesSurviveTheirTextForm)
{
    const std::vector<placement::IdBatch> batches{{3, 1, 1}, {10, 5, 4}};
    const auto back = decode_batches(encode_batches(batches));
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[1].first, 10u);
    EXPECT_EQ(back[1].count, 5u);
    EXPECT_EQ(back[1].stride, 4u);
    EXPECT_TRUE(decode_batches("").empty());
}

}  // namespace
}  // namespace shardrun::run
