// nvidia-smi -L parsing and the devices ranks bind to under MIG (issue 26, point 1).
#include <gtest/gtest.h>

#include "runner/gpu/mig_devices.hpp"

namespace shardrun::gpu {
namespace {

const char* const split_listing =
    "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
    "  MIG 3g.40gb     Device  0: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)\n"
    "  MIG 3g.40gb     Device  1: (UUID: MIG-cba663e8-9bed-5b25-b243-5985ef7c9beb)\n"
    "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)\n";

TEST(MigDevices, ParsesGpusAndTheirInstances)
{
    const auto gpus = parse_gpu_list(split_listing);

    ASSERT_EQ(gpus.size(), 2u);
    EXPECT_EQ(gpus[0].index, 0);
    EXPECT_EQ(gpus[0].name, "NVIDIA A100-SXM4-80GB");
    EXPECT_EQ(gpus[0].uuid, "GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77");
    ASSERT_EQ(gpus[0].mig.size(), 2u);
    EXPECT_EQ(gpus[0].mig[1].profile, "3g.40gb");
    EXPECT_EQ(gpus[0].mig[1].device, 1);
    EXPECT_EQ(gpus[0].mig[1].uuid, "MIG-cba663e8-9bed-5b25-b243-5985ef7c9beb");
    EXPECT_TRUE(gpus[1].mig.empty());
}

TEST(MigDevices, InstancesAndWholeGpusAreTheBindTargets)
{
    const auto targets = mig_bind_targets(parse_gpu_list(split_listing));

    EXPECT_EQ(targets, (std::vector<std::string>{"MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f",
                                                 "MIG-cba663e8-9bed-5b25-b243-5985ef7c9beb",
                                                 "GPU-1a2b3c4d-0000-1111-2222-333344445555"}));
}

TEST(MigDevices, NoMigMeansBindingByOrdinalAsBefore)
{
    const auto gpus = parse_gpu_list("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaaa)\r\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-bbbb)\n");

    EXPECT_EQ(gpus.size(), 2u);
    EXPECT_TRUE(mig_bind_targets(gpus).empty());
}

TEST(MigDevices, OtherLinesAndEmptyOutputAreIgnored)
{
    EXPECT_TRUE(parse_gpu_list("").empty());
    EXPECT_TRUE(parse_gpu_list("No devices found.\n").empty());
    // A MIG line before any GPU line belongs to nothing.
    EXPECT_TRUE(parse_gpu_list("  MIG 1g.10gb Device 0: (UUID: MIG-x)\n").empty());
}

TEST(MigDevices, LinesNameEachInstance)
{
    const auto lines = mig_lines(parse_gpu_list(split_listing));

    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "GPU 0 NVIDIA A100-SXM4-80GB: MIG 3g.40gb device 0 MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f");
    EXPECT_EQ(lines[2], "GPU 1 NVIDIA A100-SXM4-80GB: whole (MIG off) GPU-1a2b3c4d-0000-1111-2222-333344445555");
}

}  // namespace
}  // namespace shardrun::gpu
