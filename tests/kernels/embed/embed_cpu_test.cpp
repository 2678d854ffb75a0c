#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/common/errors.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/embed/embed.hpp"
#include "kernels/reference/reference.hpp"

namespace {

using namespace shardrun::kernels;

TEST(Embed, ReluRowsByHand)
{
    // X = [[1, 2], [-1, -1]], W = I·[3, 4] mixing: rows give [3, 4] -> [0.6, 0.8] and [-3, -4] -> 0
    const std::vector<float> x = {1, 2, -1, -1};
    const std::vector<float> w = {3, 0, 0, 2};
    std::vector<float> e(4, 7.0f);

    cpu::embed(Device::cpu(), {2, 2, 2, Activation::relu}, x.data(), w.data(), e.data());

    EXPECT_FLOAT_EQ(e[0], 0.6f);
    EXPECT_FLOAT_EQ(e[1], 0.8f);
    EXPECT_EQ(e[2], 0.0f);  // a zero row stays zero instead of dividing by 0
    EXPECT_EQ(e[3], 0.0f);
}

TEST(Embed, GeluRowsMatchTheReferenceAndHaveUnitNorm)
{
    const EmbedShape shape{13, 31, 9, Activation::gelu};
    std::vector<float> x(13 * 31), w(31 * 9), e(13 * 9);
    fill_seeded(x.data(), x.size(), 1, 0, -1.0f, 1.0f);
    fill_seeded(w.data(), w.size(), 2, 0, -0.3f, 0.3f);

    embed(Device::cpu(), shape, x.data(), w.data(), e.data());

    EXPECT_LT(reference::relative_error(e, reference::embed(shape, x.data(), w.data())), 1e-5);
    for (int row = 0; row < 13; ++row) {
        double norm = 0.0;
        for (int j = 0; j < 9; ++j) norm += e[row * 9 + j] * e[row * 9 + j];
        EXPECT_NEAR(norm, 1.0, 1e-5) << "row " << row;
    }
}

TEST(Embed, RefusesBadSizesAndActivations)
{
    EXPECT_THROW(validate_embed({0, 4, 4}), InvalidKernelArgument);
    EXPECT_THROW(validate_embed({4, 4, -1}), InvalidKernelArgument);
    EXPECT_THROW(validate_embed({1'000'000'000, 1'000'000, 4}), InvalidKernelArgument);
    EXPECT_THROW(parse_activation("softmax"), InvalidKernelArgument);
    EXPECT_EQ(parse_activation("tanh"), Activation::tanh);
}

}  // namespace
