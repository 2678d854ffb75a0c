#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

#include "kernels/common/errors.hpp"
#include "kernels/common/philox.hpp"
#include "kernels/montecarlo/montecarlo.hpp"
#include "kernels/reference/reference.hpp"

namespace {

using namespace shardrun::kernels;

TEST(Philox, MatchesTheRandom123KnownAnswers)
{
    const auto zero = philox4x32_10({{0, 0, 0, 0}}, 0);
    const auto ones = philox4x32_10({{~0u, ~0u, ~0u, ~0u}}, ~0ull);

    EXPECT_EQ(zero.w[0], 0x6627e8d5u);
    EXPECT_EQ(zero.w[3], 0x9b00dbd8u);
    EXPECT_EQ(ones.w[0], 0x408f276du);
    EXPECT_EQ(ones.w[3], 0x6d5451fdu);
}

TEST(MonteCarlo, PriceIsWithinThreeStandardErrorsOfBlackScholes)
{
    const OptionParams option{100.0, 105.0, 0.03, 0.25, 0.5};

    const auto sums = cpu::montecarlo_sums(Device::cpu(), option, 42, 0, 200'000);
    const auto price = montecarlo_price(option, sums);

    EXPECT_LT(std::abs(price.price - black_scholes_call(option)), 3 * price.standard_error)
        << price.price << " +- " << price.standard_error << " vs " << black_scholes_call(option);
    EXPECT_GT(price.standard_error, 0.0);
}

TEST(MonteCarlo, SumsAreBitIdenticalForAnyPartitionAndThreadCount)
{
    const OptionParams option;
    const auto whole = cpu::montecarlo_sums(Device::cpu(), option, 7, 0, 10'001);
    const int threads = omp_get_max_threads();

    omp_set_num_threads(1);
    auto parts = cpu::montecarlo_sums(Device::cpu(), option, 7, 0, 3'333);
    omp_set_num_threads(threads);
    parts += cpu::montecarlo_sums(Device::cpu(), option, 7, 3'333, 6'668);

    EXPECT_EQ(parts.paths, whole.paths);
    EXPECT_EQ(parts.payoff, whole.payoff);
    EXPECT_EQ(parts.payoff_squared, whole.payoff_squared);
}

TEST(MonteCarlo, FixedPointPriceAgreesWithTheFloat64Reference)
{
    const OptionParams option{50.0, 45.0, 0.01, 0.3, 2.0};

    const auto price = montecarlo_price(option, cpu::montecarlo_sums(Device::cpu(), option, 3, 0, 20'000));

    EXPECT_NEAR(price.price, reference::montecarlo(option, 3, 20'000), 1e-6 * option.spot);
}

TEST(MonteCarlo, RefusesBadParameters)
{
    OptionParams negative_vol, nan_spot, inf_rate;
    negative_vol.volatility = -0.1;
    nan_spot.spot = std::nan("");
    inf_rate.rate = INFINITY;

    EXPECT_THROW(validate_option(negative_vol), InvalidKernelArgument);
    EXPECT_THROW(validate_option(nan_spot), InvalidKernelArgument);
    EXPECT_THROW(validate_option(inf_rate), InvalidKernelArgument);
    EXPECT_THROW(cpu::montecarlo_sums(Device::cpu(), {}, 1, 0, 0), InvalidKernelArgument);
    EXPECT_THROW(montecarlo_price({}, {1, 5, 25}), InvalidKernelArgument);
}

}  // namespace
