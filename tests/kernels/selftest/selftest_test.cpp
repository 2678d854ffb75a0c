#include <gtest/gtest.h>

#include "kernels/common/cuda_runtime.hpp"
#include "kernels/selftest/selftest.hpp"

namespace {

using namespace shardrun::kernels;

TEST(Selftest, EveryKernelPassesOnTheCpu)
{
    const auto rows = run_selftest(Device::cpu());

    ASSERT_EQ(rows.size(), selftest_cases_list().size());
    for (const auto& row : rows) {
        EXPECT_TRUE(row.passed) << row.kernel << " " << row.dtype << ": error " << row.error << " > " << row.threshold
                                << " " << row.note;
        EXPECT_EQ(row.device, "cpu");
    }
}

TEST(Selftest, ReportsAMissingBackendAsAFailedRowInsteadOfThrowing)
{
    if (query_cuda_runtime().device_count > 0) GTEST_SKIP() << "a CUDA device exists: the GPU tests cover it";

    const auto rows = run_selftest(Device::cuda(0));

    ASSERT_EQ(rows.size(), selftest_cases_list().size());
    for (const auto& row : rows) {
        EXPECT_FALSE(row.passed) << row.kernel;
        EXPECT_FALSE(row.note.empty()) << row.kernel;  // NotCompiled or the CUDA error, one line
    }
}

}  // namespace
