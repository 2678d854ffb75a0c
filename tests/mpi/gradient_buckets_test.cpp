// Gradient buckets (run at 1, 2, 4 ranks): the plan, and averages over the ranks that match
// a plain allreduce whichever order the tensors become ready in.
#include "collectives/buckets/gradient_buckets.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "collectives/mpi/mpi_communicator.hpp"

namespace shardrun::collectives {
namespace {

TEST(BucketPlan, FirstBucketIsSmallAndTensorsNeverSplit)
{
    const std::vector<std::size_t> sizes{10, 10, 30, 5, 100, 1};

    const auto slots = plan_buckets(sizes, 4, 40 * 4, 16 * 4);

    // first cap 16 elements: {10}, then 10 + 30 = 40 fits the cap of 40, then 5, then 100 alone, then 1.
    std::vector<std::size_t> buckets;
    for (const auto& slot : slots) buckets.push_back(slot.bucket);
    EXPECT_EQ(buckets, (std::vector<std::size_t>{0, 1, 1, 2, 3, 4}));
    EXPECT_EQ(slots[2].offset, 10u);
    EXPECT_EQ(slots[4].size, 100u);
}

TEST(GradientBuckets, AveragesEveryTensorOverTheRanks)
{
    const auto world = mpi::world();
    const std::vector<std::size_t> sizes{3, 7, 64, 1, 200, 5};
    GradientBuckets buckets(*world, sizes, 80 * sizeof(float), 8 * sizeof(float));
    const float n = static_cast<float>(world->size()), r = static_cast<float>(world->rank());

    for (int step = 0; step < 3; ++step) {
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            auto g = buckets.gradient(i);
            for (std::size_t j = 0; j < g.size(); ++j) g[j] = r * 100.0f + static_cast<float>(i * 10 + j + step);
            buckets.mark_ready(i);
        }
        buckets.wait();

        // mean over ranks of r*100 + c is (n-1)/2*100 + c
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const auto g = buckets.gradient(i);
            for (std::size_t j = 0; j < g.size(); ++j) {
                ASSERT_FLOAT_EQ(g[j], (n - 1) / 2 * 100.0f + static_cast<float>(i * 10 + j + step))
                    << "tensor " << i << " element " << j << " step " << step;
            }
        }
    }
    EXPECT_GE(buckets.bucket_count(), 4u);
}

TEST(GradientBuckets, MisuseIsRefused)
{
    const auto world = mpi::world();
    GradientBuckets buckets(*world, {4, 4}, 1 << 20, 1 << 20);

    buckets.mark_ready(0);

    EXPECT_THROW(buckets.mark_ready(0), std::logic_error);
    EXPECT_THROW(buckets.wait(), std::logic_error);
    buckets.mark_ready(1);
    buckets.wait();
}

}  // namespace
}  // namespace shardrun::collectives
