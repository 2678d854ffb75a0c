#include "runner/gpu/admission_rule.hpp"

#include <gtest/gtest.h>

#include "runner/gpu/device_evidence.hpp"
#include "runner/gpu/gpu_spec_table.hpp"

namespace shardrun::gpu {
namespace {

GpuMeasure h100(double gemm, double copy = 2000)
{
    GpuMeasure m;
    m.model = "H100 SXM";
    m.gemm_tflops = gemm;
    m.copy_gbps = copy;
    m.spec_peak = 989;
    return m;
}

TEST(JudgeAdmission, RefusesTheGpuBelowTheFractionOfItsPeersMedian)
{
    auto slow = h100(350);
    slow.throttle = "hw_thermal_slowdown";
    const std::vector<GpuMeasure> all{h100(700), h100(690), slow, h100(710)};

    const auto verdicts = judge_admission(all, {0.8, 0.5});

    ASSERT_EQ(verdicts.size(), 4u);
    EXPECT_TRUE(verdicts[0].admitted);
    EXPECT_TRUE(verdicts[1].admitted);
    EXPECT_TRUE(verdicts[3].admitted);
    EXPECT_FALSE(verdicts[2].admitted);
    EXPECT_DOUBLE_EQ(verdicts[2].floor_tflops, 0.8 * 695);  // the median of 350, 690, 700, 710
    EXPECT_EQ(verdicts[2].reason, "GEMM 350 TFLOP/s below 0.8 x the median 695 of 4 H100 SXM GPUs; clocks held back by "
                                  "hw_thermal_slowdown");
}

TEST(JudgeAdmission, RefusesASlowCopyAndAGpuWithErrorsHoweverFast)
{
    auto faulty = h100(700);
    faulty.errors = "1 Xid event";
    const std::vector<GpuMeasure> all{h100(700, 2000), h100(700, 900), faulty, h100(700, 2100)};

    const auto verdicts = judge_admission(all, {0.8, 0.5});

    EXPECT_TRUE(verdicts[0].admitted);
    EXPECT_FALSE(verdicts[1].admitted);
    EXPECT_EQ(verdicts[1].reason.rfind("copy 900 GB/s below 0.8 x the median 2000 of 4 H100 SXM GPUs", 0), 0u)
        << verdicts[1].reason;
    EXPECT_FALSE(verdicts[2].admitted);
    EXPECT_EQ(verdicts[2].reason, "errors: 1 Xid event");
}

TEST(JudgeAdmission, ALoneGpuIsHeldToItsSpecAndAnUnknownOneIsNotJudged)
{
    auto unknown = h100(10);
    unknown.model = "Fake GPU 0";
    unknown.spec_peak = 0;

    const auto lone_slow = judge_admission({h100(400)}, {0.8, 0.5});
    const auto lone_fine = judge_admission({h100(600)}, {0.8, 0.5});
    const auto not_judged = judge_admission({unknown}, {0.8, 0.5});

    EXPECT_FALSE(lone_slow[0].admitted);
    EXPECT_DOUBLE_EQ(lone_slow[0].floor_tflops, 494.5);
    EXPECT_EQ(lone_slow[0].reason, "GEMM 400 TFLOP/s below 0.5 x the H100 SXM spec peak 989 (no peer of its model)");
    EXPECT_TRUE(lone_fine[0].admitted);
    EXPECT_TRUE(not_judged[0].admitted);
    EXPECT_LT(not_judged[0].floor_tflops, 0);
    EXPECT_NE(not_judged[0].reason.find("not in the spec table"), std::string::npos) << not_judged[0].reason;
}

TEST(JudgeAdmission, PeersAreGpusOfTheSameModelAndAFailedCheckIsRefused)
{
    GpuMeasure l4;
    l4.model = "L4";
    l4.gemm_tflops = 90;
    l4.copy_gbps = 250;
    l4.spec_peak = 121;
    auto broken = h100(0);
    broken.failure = "cudaErrorLaunchFailure";

    const auto verdicts = judge_admission({h100(700), h100(700), l4, broken}, {0.8, 0.5});

    EXPECT_TRUE(verdicts[0].admitted);
    EXPECT_TRUE(verdicts[2].admitted) << "an L4 is not compared with H100s: " << verdicts[2].reason;
    EXPECT_NE(verdicts[2].reason.find("L4 spec peak 121"), std::string::npos) << verdicts[2].reason;
    EXPECT_FALSE(verdicts[3].admitted);
    EXPECT_EQ(verdicts[3].reason, "the check failed: cudaErrorLaunchFailure");
}

TEST(SpecOf, MatchesTheMostSpecificModelFirst)
{
    EXPECT_EQ(spec_of("NVIDIA H100 80GB HBM3")->model, "H100 SXM");
    EXPECT_EQ(spec_of("NVIDIA H100 PCIe")->model, "H100 PCIe");
    EXPECT_EQ(spec_of("NVIDIA H200")->model, "H200");
    EXPECT_EQ(spec_of("NVIDIA GH200 480GB")->model, "GH200");
    EXPECT_EQ(spec_of("NVIDIA A100-SXM4-80GB")->model, "A100");
    EXPECT_EQ(spec_of("NVIDIA L40S")->model, "L40S");
    EXPECT_EQ(spec_of("NVIDIA L4")->model, "L4");
    EXPECT_EQ(spec_of("NVIDIA A10G")->model, "A10G");
    EXPECT_DOUBLE_EQ(spec_of("NVIDIA H200")->peak("bf16"), 989);
    EXPECT_DOUBLE_EQ(spec_of("NVIDIA L4")->peak("fp32"), 30.3);
    EXPECT_FALSE(spec_of("Fake GPU 0").has_value());
    EXPECT_FALSE(spec_of("NVIDIA H100 80GB HBM3 MIG 1g.10gb").has_value()) << "a slice has no datasheet peak";
}

TEST(ClocksEventNames, NamesTheReasonsThatHoldClocksBackButNotIdle)
{
    EXPECT_EQ(clocks_event_names(0), "");
    EXPECT_EQ(clocks_event_names(0x1), "") << "idle after the GEMM is no evidence";
    EXPECT_EQ(clocks_event_names(0x4 | 0x40), "sw_power_cap,hw_thermal_slowdown");
    EXPECT_EQ(clocks_event_names(0x8 | 0x80), "hw_slowdown,hw_power_brake");
}

}  // namespace
}  // namespace shardrun::gpu
