// CUDA against CPU on inputs larger than a warp; skipped where no GPU is found.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/device_check/device_check.hpp"
#include "kernels/embed/embed.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/heat2d/heat2d.hpp"
#include "kernels/montecarlo/montecarlo.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/selftest/selftest.hpp"

namespace {

using namespace shardrun::kernels;

class CudaKernels : public testing::Test {
protected:
    void SetUp() override
    {
        const auto runtime = query_cuda_runtime();
        if (runtime.device_count == 0) GTEST_SKIP() << "no CUDA device: " << runtime.no_device_reason;
    }
    const Device gpu_ = Device::cuda(0);
};

std::vector<double> as_double(const std::vector<float>& values) { return {values.begin(), values.end()}; }

TEST_F(CudaKernels, GemmIsEquivalentToCpu)
{
    const GemmShape shape{200, 150, 170};
    std::vector<float> a(shape.m * shape.k), b(shape.k * shape.n), c_gpu(shape.m * shape.n), c_cpu(c_gpu.size());
    fill_seeded(a.data(), a.size(), 1, 0, -1.0f, 1.0f);
    fill_seeded(b.data(), b.size(), 2, 0, -1.0f, 1.0f);

    gemm(gpu_, shape, a.data(), b.data(), c_gpu.data(), 2);
    gemm(Device::cpu(), shape, a.data(), b.data(), c_cpu.data(), 1);

    EXPECT_LT(reference::relative_error(c_gpu, as_double(c_cpu)), 1e-5);
}

TEST_F(CudaKernels, DeviceCheckRunsInEveryPrecision)
{
    for (const auto precision : {CheckPrecision::bf16, CheckPrecision::fp32, CheckPrecision::fp64}) {
        const auto timing = device_check(gpu_, precision, 1024, 64 << 20, 0.05);

        EXPECT_GE(timing.gemm_repeats, 3);
        EXPECT_GT(timing.gemm_tflops, 0);
        EXPECT_GE(timing.copy_repeats, 3);
        EXPECT_GT(timing.copy_gbps, 0);
    }
}

TEST_F(CudaKernels, BlurIsEquivalentToCpu)
{
    const BlurShape shape{2, 300, 257, 3.0};
    std::vector<float> in(2 * 300 * 257), gpu(in.size()), cpu_out(in.size());
    fill_seeded(in.data(), in.size(), 3, 0, 0.0f, 1.0f);

    blur(gpu_, shape, in.data(), gpu.data());
    blur(Device::cpu(), shape, in.data(), cpu_out.data());

    EXPECT_LT(reference::relative_error(gpu, as_double(cpu_out)), 1e-6);
}

TEST_F(CudaKernels, Heat2dIsEquivalentToCpu)
{
    Heat2dParams params{129, 97, 0.2, 0.0, 200, 1.0, 1.0, 0.0};
    params.dt = 0.9 * heat2d_stable_dt(params);
    auto gpu = heat2d_initial(params), cpu_field = gpu;

    heat2d(gpu_, params, gpu.data());
    heat2d(Device::cpu(), params, cpu_field.data());

    EXPECT_LT(reference::relative_error(gpu, cpu_field), 1e-13);
}

TEST_F(CudaKernels, MonteCarloPriceAgreesWithCpu)
{
    const OptionParams option;

    const auto gpu = montecarlo_price(option, montecarlo_sums(gpu_, option, 4, 0, 1'000'003));
    const auto cpu_price = montecarlo_price(option, montecarlo_sums(Device::cpu(), option, 4, 0, 1'000'003));

    EXPECT_NEAR(gpu.price, cpu_price.price, 1e-9 * option.spot);
}

TEST_F(CudaKernels, EmbedIsEquivalentToCpu)
{
    const EmbedShape shape{300, 64, 48, Activation::gelu};
    std::vector<float> x(300 * 64), w(64 * 48), gpu(300 * 48), cpu_out(gpu.size());
    fill_seeded(x.data(), x.size(), 5, 0, -1.0f, 1.0f);
    fill_seeded(w.data(), w.size(), 6, 0, -0.2f, 0.2f);

    embed(gpu_, shape, x.data(), w.data(), gpu.data());
    embed(Device::cpu(), shape, x.data(), w.data(), cpu_out.data());

    EXPECT_LT(reference::relative_error(gpu, as_double(cpu_out)), 1e-5);
}

TEST_F(CudaKernels, SelftestPassesOnTheGpu)
{
    for (const auto& row : run_selftest(gpu_)) EXPECT_TRUE(row.passed) << row.kernel << ": " << row.error << " " << row.note;
}

}  // namespace
