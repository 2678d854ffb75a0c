// The stop token the kernels' CPU loops poll (kernels/common/stop_token.hpp): a set token ends a
// kernel with Stopped, whatever its length; an unset one changes no bit of the result.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/heat2d/heat2d.hpp"
#include "kernels/montecarlo/montecarlo.hpp"

namespace {

using namespace shardrun::kernels;

Heat2dParams heat(std::int64_t n, std::int64_t steps)
{
    Heat2dParams params{n, n, 0.1, 0.0, steps, 0.5, 1.0, 0.0};
    params.dt = 0.8 * heat2d_stable_dt(params);
    return params;
}

TEST(StopToken, DefaultNeverStops)
{
    EXPECT_FALSE(StopToken().stop_requested());
    EXPECT_NO_THROW(StopToken().throw_if_stopped("test"));
    const std::atomic<bool> flag{true};
    EXPECT_TRUE(StopToken(&flag).stop_requested());
    EXPECT_THROW(StopToken(&flag).throw_if_stopped("test"), Stopped);
}

TEST(StopToken, AnUnsetTokenChangesNoBitOfHeat2d)
{
    // 300 x 300: above the size heat2d shares among threads, so the polling barrier is the threaded one.
    for (const std::int64_t n : {16, 300}) {
        const auto params = heat(n, 37);
        auto plain = heat2d_initial(params), polled = plain;
        heat2d(Device::cpu(), params, plain.data());
        const std::atomic<bool> flag{false};
        heat2d(Device::cpu().stoppable(StopToken(&flag)), params, polled.data());
        EXPECT_EQ(plain, polled) << n;
    }
}

TEST(StopToken, AStopEndsHeat2dOfAnyLength)
{
    for (const std::int64_t n : {16, 300}) {
        // 10^12 steps: hours, unless the stop ends it. The flag is set from another thread
        // while the kernel runs (or before it starts: either must stop it).
        const auto params = heat(n, 1'000'000'000'000);
        auto field = heat2d_initial(params);
        std::atomic<bool> flag{false};
        std::thread stopper([&] { flag.store(true); });
        EXPECT_THROW(heat2d(Device::cpu().stoppable(StopToken(&flag)), params, field.data()), Stopped) << n;
        stopper.join();
    }
}

TEST(StopToken, AStopEndsMonteCarloBlurAndGemm)
{
    const std::atomic<bool> flag{true};
    const auto device = Device::cpu().stoppable(StopToken(&flag));
    EXPECT_THROW(montecarlo_sums(device, OptionParams{}, 1, 0, 100'000'000'000), Stopped);

    const BlurShape shape{2, 64, 64, 2.0};
    std::vector<float> input(2 * 64 * 64, 1.0f), output(input.size());
    EXPECT_THROW(blur(device, shape, input.data(), output.data()), Stopped);

    const GemmShape square{32, 32, 32};
    std::vector<double> a(32 * 32, 1.0), b(a), c(a.size());
    EXPECT_THROW(gemm(device, square, a.data(), b.data(), c.data(), 1'000'000), Stopped);
}

TEST(StopToken, AnUnsetTokenChangesNoBitOfMonteCarlo)
{
    // More paths than one block between looks at the token: the sums are added block by block.
    const std::atomic<bool> flag{false};
    const std::int64_t paths = (std::int64_t{1} << 22) + 12345;
    const auto plain = montecarlo_sums(Device::cpu(), OptionParams{}, 7, 3, paths);
    const auto polled = montecarlo_sums(Device::cpu().stoppable(StopToken(&flag)), OptionParams{}, 7, 3, paths);
    EXPECT_EQ(plain.payoff, polled.payoff);
    EXPECT_EQ(plain.payoff_squared, polled.payoff_squared);
    EXPECT_EQ(plain.paths, polled.paths);
}

}  // namespace
