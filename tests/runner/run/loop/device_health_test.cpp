#include "runner/run/loop/device_health.hpp"

#include <gtest/gtest.h>

namespace shardrun::run {
namespace {

/** Scripted totals, as the NVML sampler would keep them. */
class ScriptedSource final : public gpu::DeviceFaultSource {
public:
    gpu::DeviceFaultEvents now;
    gpu::DeviceFaultEvents totals(int ordinal) const override { return ordinal == 0 ? now : gpu::DeviceFaultEvents{}; }
    std::string uuid(int) const override { return "GPU-1234"; }
};

env::DeviceBinding gpu0()
{
    env::DeviceBinding binding;
    binding.cuda = true;
    binding.ordinal = 0;
    binding.visible_id = "0";
    return binding;
}

tasks::TaskOutcome failed(std::string message) { return tasks::TaskOutcome::failure(1, std::move(message)); }

TEST(DeviceHealth, NewEventsDuringAnAttemptCountAndQuarantineAtTheLimit)
{
    auto source = std::make_shared<ScriptedSource>();
    source->now.xid_events = 4;  // from before the job: not this task's
    DeviceHealth health(gpu0(), "node1", 2, source, false);
    EXPECT_NE(health.device().find("UUID GPU-1234"), std::string::npos) << health.device();
    EXPECT_NE(health.device().find("on node1"), std::string::npos) << health.device();

    auto before = health.before(gpu0());
    EXPECT_EQ(health.after(gpu0(), before, failed("exit 1")), "") << "no new event: the program's own failure";

    before = health.before(gpu0());
    source->now.xid_events = 5;
    source->now.detail = "Xid 48 (double-bit ECC error)";
    EXPECT_EQ(health.after(gpu0(), before, failed("exit 1")), "Xid 48 (double-bit ECC error) during a task that failed");
    EXPECT_FALSE(health.quarantined());
    EXPECT_EQ(health.quarantine_line(), "");

    before = health.before(gpu0());
    source->now.ecc_uncorrected = 1;
    source->now.detail.clear();
    EXPECT_FALSE(health.after(gpu0(), before, tasks::TaskOutcome{}).empty()) << "an ok task's events count too";
    EXPECT_TRUE(health.quarantined());
    const auto line = health.quarantine_line();
    EXPECT_NE(line.find("quarantined GPU cuda:0 (UUID GPU-1234, CUDA_VISIBLE_DEVICES 0) on node1 after 2 device faults "
                        "(gpu_fault_limit: 2): Xid 48"),
              std::string::npos)
        << line;
    EXPECT_NE(line.find("1 uncorrected ECC error during a task that succeeded"), std::string::npos) << line;
}

TEST(DeviceHealth, WithoutASourceOnlyABuiltInKernelsDeviceErrorCounts)
{
    DeviceHealth kernel(gpu0(), "n", 1, nullptr, true);
    EXPECT_EQ(kernel.after(gpu0(), {}, failed("gemm: cudaErrorIllegalAddress (illegal address)")), "");
    EXPECT_FALSE(kernel.after(gpu0(), {}, failed("gemm: cudaErrorECCUncorrectable (ecc)")).empty());
    EXPECT_TRUE(kernel.quarantined());

    DeviceHealth program(gpu0(), "n", 1, nullptr, false);
    EXPECT_EQ(program.after(gpu0(), {}, failed("cudaErrorECCUncorrectable")), "");
    env::DeviceBinding cpu;
    EXPECT_EQ(DeviceHealth(gpu0(), "n", 1, nullptr, true).after(cpu, {}, failed("cudaErrorECCUncorrectable")), "")
        << "a task device: auto sent to the CPU says nothing of the GPU";
}

}  // namespace
}  // namespace shardrun::run
