#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/blur/blur_element.hpp"
#include "kernels/common/errors.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/reference/reference.hpp"

namespace {

using namespace shardrun::kernels;

TEST(Blur, RadiusIsCeilOfThreeSigmaAndWeightsSumToOne)
{
    const auto weights = blur_weights(1.2);  // radius ceil(3.6) = 4

    double total = 0.0;
    for (const float w : weights) total += w;
    EXPECT_EQ(blur_radius(1.2), 4);
    EXPECT_EQ(weights.size(), 9u);
    EXPECT_NEAR(total, 1.0, 1e-6);
    EXPECT_FLOAT_EQ(weights[0], weights[8]);
}

TEST(Blur, ImpulseBecomesTheOuterProductOfTheWeights)
{
    const BlurShape shape{1, 11, 11, 1.0};  // radius 3: the impulse never reaches a border
    std::vector<float> image(121, 0.0f), out(121);
    image[5 * 11 + 5] = 1.0f;

    cpu::blur(Device::cpu(), shape, image.data(), out.data());

    const auto w = blur_weights(1.0);
    EXPECT_FLOAT_EQ(out[5 * 11 + 5], w[3] * w[3]);
    EXPECT_FLOAT_EQ(out[4 * 11 + 7], w[2] * w[5]);
    EXPECT_FLOAT_EQ(out[0], 0.0f);
}

TEST(Blur, ConstantImageStaysConstantThroughClampedBorders)
{
    const BlurShape shape{2, 5, 7, 2.5};  // radius 8 > the image: every pixel clamps
    std::vector<float> image(70, 3.0f), out(70);

    cpu::blur(Device::cpu(), shape, image.data(), out.data());

    for (const float v : out) EXPECT_NEAR(v, 3.0f, 1e-5f);
}

TEST(Blur, BatchMatchesTheDirectFloat64Convolution)
{
    const BlurShape shape{3, 17, 23, 1.3};
    std::vector<float> images(3 * 17 * 23), out(images.size());
    fill_seeded(images.data(), images.size(), 9, 0, 0.0f, 1.0f);

    blur(Device::cpu(), shape, images.data(), out.data());

    EXPECT_LT(reference::relative_error(out, reference::blur(shape, images.data())), 1e-6);
}

TEST(Blur, WideRowsMatchTheDirectConvolutionAndEachImageAlone)
{
    // 101 columns: the vector blocks and the scalar tail; 18 rows: rows blurred in pairs, and
    // a thread's rows may start at an odd row of an image (2 threads: row 27 = image 1, row 9).
    const BlurShape shape{3, 18, 101, 1.3};
    const std::size_t plane = 18 * 101;
    std::vector<float> images(3 * plane), out(images.size());
    fill_seeded(images.data(), images.size(), 11, 0, 0.0f, 1.0f);

    blur(Device::cpu(), shape, images.data(), out.data());

    EXPECT_LT(reference::relative_error(out, reference::blur(shape, images.data())), 1e-6);
    for (std::size_t i = 0; i < 3; ++i) {
        std::vector<float> alone(plane);
        blur(Device::cpu(), BlurShape{1, 18, 101, 1.3}, images.data() + i * plane, alone.data());
        for (std::size_t p = 0; p < plane; ++p) ASSERT_EQ(out[i * plane + p], alone[p]) << "image " << i << " pixel " << p;
    }
}

TEST(Blur, RefusesBadSigmaAndSizes)
{
    for (const double sigma : {0.0, -1.0, std::nan(""), HUGE_VAL, blur_max_sigma + 1}) {
        try {
            validate_blur({1, 8, 8, sigma});
            ADD_FAILURE() << "sigma " << sigma << " accepted";
        } catch (const InvalidKernelArgument& e) {
            EXPECT_EQ(e.field(), "sigma");
        }
    }
    EXPECT_THROW(validate_blur({0, 8, 8, 1.0}), InvalidKernelArgument);
    EXPECT_THROW(validate_blur({1, -8, 8, 1.0}), InvalidKernelArgument);
    EXPECT_THROW(validate_blur({1'000'000, 100'000, 100'000, 1.0}), InvalidKernelArgument);
}

}  // namespace
