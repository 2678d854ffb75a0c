// The packing plan shows and the MPS variables a client gets (issue 26, point 1).
#include <gtest/gtest.h>

#include "runner/gpu/gpu_packing.hpp"
#include "runner/gpu/mps_env.hpp"

namespace shardrun::gpu {
namespace {

TEST(GpuPacking, RanksTakeDevicesModuloTheirCount)
{
    const auto devices = pack_node(6, 4, {});

    ASSERT_EQ(devices.size(), 4u);
    EXPECT_EQ(devices[0].device, "GPU 0");
    EXPECT_EQ(devices[0].ranks, (std::vector<int>{0, 4}));
    EXPECT_EQ(devices[1].ranks, (std::vector<int>{1, 5}));
    EXPECT_EQ(devices[3].ranks, (std::vector<int>{3}));
}

TEST(GpuPacking, MigInstancesAreTheDevices)
{
    const auto devices = pack_node(3, 2, {"3g.40gb", 2});

    ASSERT_EQ(devices.size(), 4u);
    EXPECT_EQ(devices[1].device, "GPU 0 MIG 3g.40gb device 1");
    EXPECT_EQ(devices[2].device, "GPU 1 MIG 3g.40gb device 0");
    EXPECT_EQ(devices[2].ranks, (std::vector<int>{2}));
    EXPECT_TRUE(devices[3].ranks.empty());
}

TEST(GpuPacking, MigSplitText)
{
    std::string problem;

    const auto split = parse_mig_split("3g.40gb:2", &problem);

    EXPECT_TRUE(problem.empty());
    EXPECT_EQ(split.profile, "3g.40gb");
    EXPECT_EQ(split.per_gpu, 2);
    for (const char* bad : {"3g.40gb", ":2", "3g.40gb:0", "3g.40gb:x", "3g.40gb:"}) {
        problem.clear();
        parse_mig_split(bad, &problem);
        EXPECT_FALSE(problem.empty()) << bad;
    }
}

TEST(MpsEnv, TaskGetsFoldersShareAndLimitOnItsOrdinal)
{
    const MpsClientSettings task{"/tmp/m/pipe", "/tmp/m/log", 25, 1ull << 30};

    const auto env = mps_client_env(task, 0);

    EXPECT_EQ(env, (std::vector<std::string>{"CUDA_MPS_PIPE_DIRECTORY=/tmp/m/pipe", "CUDA_MPS_LOG_DIRECTORY=/tmp/m/log",
                                             "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25",
                                             "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=1G"}));
}

TEST(MpsEnv, NoMemoryLimitWithoutGpuMemory)
{
    const auto env = mps_client_env({"/p", "/l", 50, 0}, 3);

    EXPECT_EQ(env.size(), 3u);
}

TEST(MpsEnv, RankProcessHoldsItsKSlots)
{
    const auto rank = rank_process_settings({"/p", "/l", 30, 1ull << 30}, 4);

    EXPECT_EQ(rank.thread_percent, 100);  // 4 x 30, at most 100
    EXPECT_EQ(rank.memory_bytes, 4ull << 30);
    EXPECT_EQ(mps_client_env(rank, 2).back(), "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=2=4G");
}

}  // namespace
}  // namespace shardrun::gpu
