#include "runner/env/cpu_share.hpp"

#include <gtest/gtest.h>

#include <initializer_list>

namespace shardrun::env {
namespace {

cpu_set_t cpus(std::initializer_list<int> list)
{
    cpu_set_t mask;
    CPU_ZERO(&mask);
    for (const int cpu : list) CPU_SET(cpu, &mask);
    return mask;
}

TEST(CpuShare, ARankAloneKeepsEveryCpu)
{
    const auto mine = cpus({0, 1, 2, 3, 4, 5, 6, 7});
    const auto share = share_of(mine, {mine});
    EXPECT_EQ(share.cpus, 8);
    EXPECT_EQ(share.sharers, 1);
    EXPECT_EQ(share.threads, 8);
}

TEST(CpuShare, UnboundRanksSplitTheNode)
{
    // mpirun --bind-to none -np 3 on 8 CPUs: every rank sees all 8, each task gets 8 / 3 threads.
    const auto all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
    const auto share = share_of(all, {all, all, all});
    EXPECT_EQ(share.cpus, 8);
    EXPECT_EQ(share.sharers, 3);
    EXPECT_EQ(share.threads, 2);
}

TEST(CpuShare, RanksBoundToTheirOwnCoresKeepThem)
{
    // --map-by slot:PE=4 (or srun --cpus-per-task=4): disjoint masks, nothing shared.
    const auto mine = cpus({0, 1, 2, 3});
    const auto share = share_of(mine, {mine, cpus({4, 5, 6, 7})});
    EXPECT_EQ(share.cpus, 4);
    EXPECT_EQ(share.sharers, 1);
    EXPECT_EQ(share.threads, 4);
}

TEST(CpuShare, MoreRanksThanCpusStillGetOneThread)
{
    const auto all = cpus({0, 1});
    const auto share = share_of(all, {all, all, all, all});
    EXPECT_EQ(share.sharers, 4);
    EXPECT_EQ(share.threads, 1);
}

TEST(CpuShare, RanksPinnedToOneCoreEachGetOneThread)
{
    // Open MPI's default at np <= 2: --bind-to core.
    const auto share = share_of(cpus({1}), {cpus({0}), cpus({1})});
    EXPECT_EQ(share.cpus, 1);
    EXPECT_EQ(share.threads, 1);
}

TEST(CpuShare, OwnAffinityIsThisProcesssMask)
{
    cpu_set_t expected;
    ASSERT_EQ(sched_getaffinity(0, sizeof expected, &expected), 0);
    const auto mine = own_affinity();
    EXPECT_EQ(CPU_COUNT(&mine), CPU_COUNT(&expected));
    EXPECT_TRUE(CPU_EQUAL(&mine, &expected));
}

TEST(CpuShare, ACgroupQuotaCapsTheThreads)
{
    // docker --cpus 2 on a host of 8: the container's 2 ranks see 8 CPUs but may use 2 between them.
    const auto all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(share_of(all, {all, all}, 2).threads, 1);
    EXPECT_EQ(share_of(all, {all}, 2).threads, 2);
    EXPECT_EQ(share_of(all, {all}, 16).threads, 8);  // a quota above the mask changes nothing
}

TEST(CpuShare, TheCpusGivenToTheNodeCapLikeAQuota)
{
    EXPECT_EQ(node_cpu_limit(std::nullopt, "8"), 8);
    EXPECT_EQ(node_cpu_limit(4, "8"), 4);  // the smaller of the two
    EXPECT_EQ(node_cpu_limit(16, "8"), 8);
    EXPECT_EQ(node_cpu_limit(std::nullopt, ""), std::nullopt);
    EXPECT_EQ(node_cpu_limit(3, "0"), 3);  // not a positive number: only the quota
    EXPECT_EQ(node_cpu_limit(std::nullopt, "eight"), std::nullopt);
}

TEST(CpuShare, QuotaTexts)
{
    EXPECT_EQ(quota_cpus_of("200000", "100000"), 2);  // cgroup v2 cpu.max "200000 100000"
    EXPECT_EQ(quota_cpus_of("150000", "100000"), 2);  // 1.5 CPUs: rounded up
    EXPECT_EQ(quota_cpus_of("50000", "100000"), 1);
    EXPECT_EQ(quota_cpus_of("max", "100000"), std::nullopt);
    EXPECT_EQ(quota_cpus_of("-1", "100000"), std::nullopt);  // cgroup v1: no quota
    EXPECT_EQ(quota_cpus_of("", ""), std::nullopt);
}

}  // namespace
}  // namespace shardrun::env
