#include "runner/submit/submit_resources.hpp"

#include <gtest/gtest.h>

#include "runner/errors.hpp"

namespace shardrun::submit {
namespace {

SubmitOptions gpu_options(long ranks, long gpus_per_rank, std::string gpu_type = "nvidia-l4")
{
    SubmitOptions options;
    options.ranks_per_node = ranks;
    options.gpus_per_rank = gpus_per_rank;
    options.gpu_type = std::move(gpu_type);
    return options;
}

TEST(ParseSizeMib, ReadsBinaryUnitsAndBareMib)
{
    const auto g = parse_size_mib("30G", "--memory");
    const auto gib = parse_size_mib("30GiB", "--memory");
    const auto m = parse_size_mib("2048m", "--memory");
    const auto bare = parse_size_mib("40000", "--memory");
    const auto t = parse_size_mib("1T", "--memory");

    EXPECT_EQ(g, 30720);
    EXPECT_EQ(gib, 30720);
    EXPECT_EQ(m, 2048);
    EXPECT_EQ(bare, 40000);
    EXPECT_EQ(t, 1024 * 1024);
}

TEST(ParseSizeMib, RefusesWhatIsNoSize)
{
    for (const char* text : {"", "G", "0", "0G", "-1G", "1.5G", "4P", "4 G B", "lots"}) {
        EXPECT_THROW(parse_size_mib(text, "--memory"), UsageError) << text;
    }
}

TEST(GcpMachineTable, GivesTheMachineForACount)
{
    const auto* l4 = gcp_machine_for("nvidia-l4", 1);
    const auto* t4 = gcp_machine_for("nvidia-tesla-t4", 4);
    const auto* none = gcp_machine_for("nvidia-l4", 3);

    ASSERT_NE(l4, nullptr);
    EXPECT_EQ(l4->name, "g2-standard-8");
    EXPECT_TRUE(l4->bundled);
    ASSERT_NE(t4, nullptr);
    EXPECT_EQ(t4->name, "n1-highmem-32");
    EXPECT_FALSE(t4->bundled);
    EXPECT_EQ(none, nullptr);
    EXPECT_EQ(gcp_machine_named("a2-megagpu-16g")->gpus, 16);
}

TEST(ResolveCloudSizes, DefaultsFollowTheGpus)
{
    auto gpu = gpu_options(2, 1);
    SubmitOptions cpu;
    cpu.ranks_per_node = 3;

    resolve_cloud_sizes(gpu);
    resolve_cloud_sizes(cpu);

    EXPECT_EQ(gpu.vcpus, 16);
    EXPECT_EQ(gpu.memory_mib, 2 * 30720);
    EXPECT_EQ(gpu.shm_mib, 2 * 8192);
    EXPECT_EQ(cpu.vcpus, 3);
    EXPECT_EQ(cpu.memory_mib, 3 * 2048);
    EXPECT_EQ(cpu.shm_mib, 1024);
}

TEST(ResolveGcpMachine, CapsTheDefaultsAtTheMachine)
{
    auto options = gpu_options(16, 1, "nvidia-tesla-a100");

    resolve_gcp_machine(options);

    EXPECT_EQ(options.machine_type, "a2-megagpu-16g");
    EXPECT_EQ(options.vcpus, 96);
    EXPECT_EQ(options.memory_mib, 16 * 30720);
}

TEST(ResolveGcpMachine, RefusesACountNoMachineCarries)
{
    auto three = gpu_options(3, 1);
    auto too_many_vcpus = gpu_options(1, 1);
    too_many_vcpus.vcpus = 9;
    auto shm_over_memory = gpu_options(1, 1);
    shm_over_memory.memory = "4G";
    shm_over_memory.shm_size = "5G";

    EXPECT_THROW(resolve_gcp_machine(three), UsageError);
    EXPECT_THROW(resolve_gcp_machine(too_many_vcpus), UsageError);
    EXPECT_THROW(resolve_gcp_machine(shm_over_memory), UsageError);
}

}  // namespace
}  // namespace shardrun::submit
