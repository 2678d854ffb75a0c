#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "kernels/common/errors.hpp"
#include "kernels/common/streaming_store.hpp"
#include "kernels/heat2d/heat2d.hpp"
#include "kernels/reference/reference.hpp"

namespace {

using namespace shardrun::kernels;

TEST(Heat2d, OneStepOnAThreeByThreeGridByHand)
{
    // h = 0.5, r = alpha·dt/h² = 0.1·0.5/0.25 = 0.2; the only interior point sees four zeros
    Heat2dParams params{3, 3, 0.1, 0.5, 1, 0.0, 1.0, 0.0};
    std::vector<double> field(9, 0.0);
    field[4] = 1.0;

    cpu::heat2d(Device::cpu(), params, field.data());

    EXPECT_DOUBLE_EQ(field[4], 1.0 - 4 * 0.2);
    EXPECT_DOUBLE_EQ(field[0], 0.0);
}

TEST(Heat2d, SineModeDecaysAsExpMinusTwoAlphaPiSquaredT)
{
    // Tolerance: |u − u_exact| <= 2e-3·amplitude. Spatial error ~ pi²h²/12·rate·t ~ 2e-4 and
    // the time-stepping error ~ 5e-4 here, both relative to the amplitude.
    Heat2dParams params{65, 65, 0.1, 0.0, 0, 0.0, 1.0, 0.0};
    params.dt = 0.8 * heat2d_stable_dt(params);
    const double t_end = 1.0 / (2 * params.alpha * std::numbers::pi * std::numbers::pi);  // one e-fold
    params.steps = static_cast<std::int64_t>(std::round(t_end / params.dt));
    auto field = heat2d_initial(params);

    heat2d(Device::cpu(), params, field.data());

    const double t = params.steps * params.dt, pi = std::numbers::pi;
    const double decay = std::exp(-2 * params.alpha * pi * pi * t);
    double worst = 0.0;
    for (std::int64_t j = 0; j < params.ny; ++j) {
        for (std::int64_t i = 0; i < params.nx; ++i) {
            const double exact = decay * std::sin(pi * i / 64.0) * std::sin(pi * j / 64.0);
            worst = std::max(worst, std::abs(field[j * params.nx + i] - exact));
        }
    }
    EXPECT_LT(worst, 2e-3);
    EXPECT_NEAR(field[32 * 65 + 32], decay, 2e-3);
}

TEST(Heat2d, MatchesThePointwiseReferenceWithASource)
{
    Heat2dParams params{17, 11, 0.3, 0.0, 25, 2.0, 1.5, 0.25};
    params.dt = 0.9 * heat2d_stable_dt(params);
    auto field = heat2d_initial(params);
    const auto want = reference::heat2d(params, field);

    cpu::heat2d(Device::cpu(), params, field.data());

    EXPECT_LT(reference::relative_error(field, want), 1e-14);
}

TEST(Heat2d, MatchesTheReferenceOnThreadsWithFusedStepsAndARemainder)
{
    // Above the threading threshold; 11 steps are sweeps of several steps each and a shorter last one.
    Heat2dParams params{301, 299, 0.5, 0.0, 11, -1.0, 2.0, 0.75};
    params.dt = 0.95 * heat2d_stable_dt(params);
    auto field = heat2d_initial(params);
    field[150 * 301 + 7] += 1.0;  // a spike: neighbours that differ
    const auto want = reference::heat2d(params, field);

    cpu::heat2d(Device::cpu(), params, field.data());

    EXPECT_LT(reference::relative_error(field, want), 1e-14);
}

TEST(Heat2d, MatchesTheReferenceOnAGridBeyondTheCacheWhereItStreamsItsStores)
{
    // Two fields larger than the last-level cache take the streaming-store path; an odd nx
    // puts every other row's first interior point off a 16-byte boundary.
    const std::int64_t nx = 1001;
    const auto ny = static_cast<std::int64_t>(last_level_cache_bytes() / (2 * sizeof(double)) / nx + 3);
    Heat2dParams params{nx, ny, 0.2, 0.0, 3, 1.0, 1.0, 0.5};
    params.dt = 0.9 * heat2d_stable_dt(params);
    auto field = heat2d_initial(params);
    const auto want = reference::heat2d(params, field);

    cpu::heat2d(Device::cpu(), params, field.data());

    EXPECT_LT(reference::relative_error(field, want), 1e-14);
}

TEST(Heat2d, RefusesAnUnstableTimeStepAndStatesTheLimit)
{
    Heat2dParams params{101, 101, 1.0, 3e-5, 10};  // limit = 0.01²/4 = 2.5e-5

    try {
        validate_heat2d(params);
        FAIL() << "unstable dt accepted";
    } catch (const InvalidKernelArgument& e) {
        EXPECT_EQ(e.field(), "dt");
        EXPECT_NE(std::string(e.what()).find("2.5e-05"), std::string::npos) << e.what();
    }
}

TEST(Heat2d, RefusesNonFiniteAndNonPositiveParameters)
{
    const Heat2dParams good{9, 9, 0.1, 1e-4, 1};
    auto nan_alpha = good, inf_dt = good, small = good, zero_dt = good;
    nan_alpha.alpha = std::nan("");
    inf_dt.dt = INFINITY;
    small.nx = 0;
    zero_dt.dt = 0.0;

    EXPECT_NO_THROW(validate_heat2d(good));
    EXPECT_THROW(validate_heat2d(nan_alpha), InvalidKernelArgument);
    EXPECT_THROW(validate_heat2d(inf_dt), InvalidKernelArgument);
    EXPECT_THROW(validate_heat2d(small), InvalidKernelArgument);
    EXPECT_THROW(validate_heat2d(zero_dt), InvalidKernelArgument);
}

TEST(Heat2d, RefusesAGridLargerThanHostMemory)
{
    Heat2dParams huge{4'000'000, 4'000'000, 1e-6, 1e-9, 1};

    EXPECT_THROW(
        {
            try {
                validate_heat2d(huge);
            } catch (const InvalidKernelArgument& e) {
                EXPECT_NE(std::string(e.what()).find("bytes of host memory"), std::string::npos) << e.what();
                throw;
            }
        },
        InvalidKernelArgument);
}

}  // namespace
