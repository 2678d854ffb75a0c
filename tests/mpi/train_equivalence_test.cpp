// The train kind's data parallelism (run at 1, 2, 4 ranks): one group of every rank trains
// the same model as one rank alone, with the same global batch and seed.
#include "runner/tasks/train/mlp_trainer.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "collectives/mpi/mpi_communicator.hpp"

namespace shardrun::tasks::train {
namespace {

TrainConfig small_config(Optimizer optimizer)
{
    TrainConfig c;
    c.features = 8;
    c.classes = 3;
    c.width = 16;
    c.depth = 2;
    c.samples = 512;
    c.val_samples = 256;
    c.batch = 64;
    c.epochs = 4;
    c.noise = 1.5f;
    c.optimizer = optimizer;
    c.lr = optimizer == Optimizer::adam ? 0.01f : 0.05f;
    c.first_bucket_bytes = 256;  // several buckets, so the overlap path is exercised
    c.bucket_bytes = 1024;
    return c;
}

class TrainEquivalence : public ::testing::TestWithParam<Optimizer> {};

// Tolerance: float32 sums over the batch are added in another order (per member, then the
// average), so results agree to rounding, not bit for bit: 1e-5 relative on the loss and
// 1e-4 absolute on the parameters after 32 steps.
TEST_P(TrainEquivalence, GroupOfAllRanksMatchesOneRankAlone)
{
    const auto world = collectives::mpi::world();
    const auto alone = world->split(world->rank(), 0);
    const auto config = small_config(GetParam());

    const auto together = train_mlp(config, *world);
    const auto single = train_mlp(config, *alone);

    ASSERT_TRUE(together.failure.empty()) << together.failure;
    ASSERT_EQ(together.loss.size(), single.loss.size());
    for (std::size_t e = 0; e < single.loss.size(); ++e) {
        EXPECT_NEAR(together.loss[e], single.loss[e], 1e-5 * single.loss[e]) << "epoch " << e + 1;
    }
    EXPECT_LT(single.loss.back(), single.loss.front()) << "the model did not learn";
    ASSERT_EQ(together.params.size(), single.params.size());
    for (std::size_t p = 0; p < single.params.size(); ++p) {
        for (std::size_t i = 0; i < single.params[p].size(); ++i) {
            ASSERT_NEAR(together.params[p][i], single.params[p][i], 1e-4) << "tensor " << p << " element " << i;
        }
    }
    EXPECT_NEAR(together.val_accuracy, single.val_accuracy, 1.0 / config.val_samples + 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, TrainEquivalence, ::testing::Values(Optimizer::sgd, Optimizer::adam),
                         [](const auto& info) { return info.param == Optimizer::sgd ? "sgd" : "adam"; });

TEST(TrainDivergence, ANanLossFailsAndNamesTheEpoch)
{
    const auto world = collectives::mpi::world();
    auto config = small_config(Optimizer::sgd);
    // Features of 1e30 overflow float32 activations after the first update.
    config.noise = 1e30f;
    config.epochs = 3;

    const auto result = train_mlp(config, *world);

    ASSERT_FALSE(result.failure.empty()) << "training on features of 1e30 did not diverge; final loss " << result.loss.back();
    EXPECT_NE(result.failure.find("in epoch "), std::string::npos) << result.failure;
}

TEST(TrainConfigCheck, BatchMustSplitOverTheGroup)
{
    auto config = small_config(Optimizer::sgd);
    config.batch = 66;

    EXPECT_NE(config_problem(config, 4).find("params.batch: 66 must be a positive multiple of the group size 4"),
              std::string::npos);
    EXPECT_EQ(config_problem(config, 2), "");
}

}  // namespace
}  // namespace shardrun::tasks::train
