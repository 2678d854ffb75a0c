#include "runner/gpu/quarantine.hpp"

#include <gtest/gtest.h>

namespace shardrun::gpu {
namespace {

TaskOnDevice failed_kernel(std::string message)
{
    TaskOnDevice task;
    task.failed = true;
    task.trusted_message = true;
    task.message = std::move(message);
    return task;
}

TEST(DeviceErrorIn, FindsOnlyErrorsOfFailingHardware)
{
    EXPECT_EQ(device_error_in("gemm: cudaErrorECCUncorrectable (uncorrectable ECC error encountered)"),
              "cudaErrorECCUncorrectable");
    EXPECT_EQ(device_error_in("blur: cudaErrorLaunchFailure (unspecified launch failure)"), "cudaErrorLaunchFailure");
    EXPECT_EQ(device_error_in("cudaErrorNvlinkUncorrectable"), "cudaErrorNvlinkUncorrectable");
    EXPECT_EQ(device_error_in("cudaErrorHardwareStackError (hardware stack error)"), "cudaErrorHardwareStackError");
    EXPECT_EQ(device_error_in("the GPU has fallen off the bus"), "fallen off the bus");
    // A program's own bugs and limits are not the device's fault.
    EXPECT_EQ(device_error_in("cudaErrorIllegalAddress (an illegal memory access was encountered)"), "");
    EXPECT_EQ(device_error_in("cudaErrorMemoryAllocation (out of memory)"), "");
    EXPECT_EQ(device_error_in("cudaErrorMisalignedAddress"), "");
    EXPECT_EQ(device_error_in("cudaErrorLaunchFailureX"), "") << "whole names only";
}

TEST(JudgeTask, EventsDuringATaskCountWhetherItFailedOrNot)
{
    TaskOnDevice task;
    task.events.xid_events = 1;
    task.events.detail = "Xid 79 (GPU has fallen off the bus)";
    auto verdict = judge_task(task);
    EXPECT_TRUE(verdict.fault);
    EXPECT_EQ(verdict.evidence, "Xid 79 (GPU has fallen off the bus) during a task that succeeded");
    task.failed = true;
    task.events = {};
    task.events.ecc_uncorrected = 2;
    task.events.retired_pages = 1;
    verdict = judge_task(task);
    EXPECT_TRUE(verdict.fault);
    EXPECT_EQ(verdict.evidence, "2 uncorrected ECC errors, 1 retired page during a task that failed");
}

TEST(JudgeTask, ABuiltInKernelsDeviceErrorCountsAUserProgramsDoesNot)
{
    EXPECT_TRUE(judge_task(failed_kernel("gemm: cudaErrorECCUncorrectable (uncorrectable ECC error)")).fault);
    EXPECT_FALSE(judge_task(failed_kernel("gemm: cudaErrorIllegalAddress (illegal address)")).fault);
    auto program = failed_kernel("exit 1: cudaErrorECCUncorrectable");
    program.trusted_message = false;
    EXPECT_FALSE(judge_task(program).fault) << "a user's program's output is its own";
    auto ok = failed_kernel("cudaErrorECCUncorrectable");
    ok.failed = false;
    EXPECT_FALSE(judge_task(ok).fault);
}

TEST(FaultLedger, QuarantinesAtTheLimitAndStays)
{
    FaultLedger ledger(2);
    EXPECT_FALSE(ledger.record("gpu0", "first"));
    EXPECT_FALSE(ledger.quarantined("gpu0"));
    EXPECT_TRUE(ledger.record("gpu0", "second")) << "the limit-th fault quarantines";
    EXPECT_TRUE(ledger.quarantined("gpu0"));
    EXPECT_FALSE(ledger.record("gpu0", "third")) << "only once";
    EXPECT_TRUE(ledger.quarantined("gpu0"));
    EXPECT_FALSE(ledger.quarantined("gpu1"));
    const auto devices = ledger.quarantined_devices();
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0].device, "gpu0");
    EXPECT_EQ(devices[0].evidence, (std::vector<std::string>{"first", "second", "third"}));
    EXPECT_TRUE(FaultLedger(0).record("x", "a limit below 1 is 1"));
}

TEST(SomeRankHealthy, FalseOnlyWhenEveryRankIsQuarantined)
{
    EXPECT_TRUE(some_rank_healthy({true, false}));
    EXPECT_FALSE(some_rank_healthy({true, true}));
    EXPECT_FALSE(some_rank_healthy({}));
}

}  // namespace
}  // namespace shardrun::gpu
