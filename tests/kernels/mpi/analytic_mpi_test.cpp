// The analytic checks at 1, 2 and 4 ranks: work is split across ranks as shardrun splits
// tasks and data ranges, combined with MPI_Allreduce, and compared with one rank's answer.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/heat2d/heat2d.hpp"
#include "kernels/montecarlo/montecarlo.hpp"

namespace {

using namespace shardrun::kernels;

struct World {
    int rank = 0;
    int size = 1;
    World()
    {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
};

MonteCarloSums allreduce(const MonteCarloSums& mine)
{
    std::int64_t local[3] = {mine.paths, mine.payoff, mine.payoff_squared}, total[3] = {};
    MPI_Allreduce(local, total, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return {total[0], total[1], total[2]};
}

TEST(MonteCarloMpi, PriceIsBitIdenticalToOneRankAndWithinThreeStandardErrors)
{
    const World world;
    const OptionParams option{100.0, 100.0, 0.05, 0.2, 1.0};
    const std::int64_t paths = 300'007, block = (paths + world.size - 1) / world.size;
    const std::int64_t first = std::min(paths, world.rank * block), last = std::min(paths, first + block);

    MonteCarloSums mine;
    if (last > first) mine = cpu::montecarlo_sums(Device::cpu(), option, 2024, first, last - first);
    const auto split = montecarlo_price(option, allreduce(mine));
    const auto whole = montecarlo_price(option, cpu::montecarlo_sums(Device::cpu(), option, 2024, 0, paths));

    EXPECT_EQ(std::memcmp(&split.price, &whole.price, sizeof(double)), 0) << split.price << " vs " << whole.price;
    EXPECT_EQ(std::memcmp(&split.standard_error, &whole.standard_error, sizeof(double)), 0);
    EXPECT_LT(std::abs(split.price - black_scholes_call(option)), 3 * split.standard_error);
}

TEST(MonteCarloMpi, CyclicChunksGiveTheSameSumsAsContiguousBlocks)
{
    const World world;
    const OptionParams option{80.0, 90.0, 0.01, 0.35, 0.5};
    const std::int64_t paths = 50'000, chunk = 997;

    MonteCarloSums mine;
    for (std::int64_t c = world.rank; c * chunk < paths; c += world.size) {
        mine += cpu::montecarlo_sums(Device::cpu(), option, 77, c * chunk, std::min(chunk, paths - c * chunk));
    }
    const auto split = allreduce(mine);
    const auto whole = cpu::montecarlo_sums(Device::cpu(), option, 77, 0, paths);

    EXPECT_EQ(split.paths, whole.paths);
    EXPECT_EQ(split.payoff, whole.payoff);
    EXPECT_EQ(split.payoff_squared, whole.payoff_squared);
}

TEST(Heat2dMpi, EverySweepPointDecaysAsTheSineModeOnWhicheverRankRunsIt)
{
    // Tolerance: |u − u_exact| <= 2e-3·amplitude (see heat2d_cpu_test.cpp for the error budget).
    const World world;
    const double alphas[] = {0.05, 0.1, 0.2, 0.4};
    double worst = 0.0;

    for (int task = world.rank; task < 4; task += world.size) {
        Heat2dParams p{33, 33, alphas[task], 0.0, 0};
        p.dt = 0.8 * heat2d_stable_dt(p);
        const double pi = std::numbers::pi, t_end = 0.5 / (2 * p.alpha * pi * pi);
        p.steps = static_cast<std::int64_t>(std::round(t_end / p.dt));
        auto u = heat2d_initial(p);
        cpu::heat2d(Device::cpu(), p, u.data());
        const double decay = std::exp(-2 * p.alpha * pi * pi * p.steps * p.dt);
        for (std::int64_t j = 0; j < p.ny; ++j) {
            for (std::int64_t i = 0; i < p.nx; ++i) {
                const double exact = decay * std::sin(pi * i / 32.0) * std::sin(pi * j / 32.0);
                worst = std::max(worst, std::abs(u[j * p.nx + i] - exact));
            }
        }
    }
    double global_worst = 0.0;
    MPI_Allreduce(&worst, &global_worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    EXPECT_LT(global_worst, 2e-3);
}

TEST(BlurMpi, ImagesSplitAcrossRanksMatchOneRankBitForBit)
{
    const World world;
    const BlurShape all{8, 24, 19, 1.5};
    const std::int64_t pixels = all.height * all.width;
    std::vector<double> sums(all.images, 0.0), split(all.images, 0.0), whole(all.images, 0.0);

    for (std::int64_t image = world.rank; image < all.images; image += world.size) {
        std::vector<float> in(pixels), out(pixels);
        fill_seeded(in.data(), pixels, 5, image * pixels, 0.0f, 1.0f);  // the rows a data range gives
        blur(Device::cpu(), {1, all.height, all.width, all.sigma}, in.data(), out.data());
        for (const float v : out) sums[image] += v;
    }
    MPI_Allreduce(sums.data(), split.data(), static_cast<int>(all.images), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    std::vector<float> in(all.images * pixels), out(in.size());
    fill_seeded(in.data(), in.size(), 5, 0, 0.0f, 1.0f);
    blur(Device::cpu(), all, in.data(), out.data());
    for (std::int64_t image = 0; image < all.images; ++image) {
        for (std::int64_t p = 0; p < pixels; ++p) whole[image] += out[image * pixels + p];
    }

    EXPECT_EQ(split, whole);
}

}  // namespace
