#include <gtest/gtest.h>

#include <vector>

#include "kernels/common/errors.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/reference/reference.hpp"

namespace {

using namespace shardrun::kernels;

TEST(Gemm, MultipliesSmallFloatMatricesByHand)
{
    const std::vector<float> a = {1, 2, 3, 4, 5, 6};     // 2 x 3
    const std::vector<float> b = {7, 8, 9, 10, 11, 12};  // 3 x 2
    std::vector<float> c(4, -1.0f);

    const auto timing = cpu::gemm(Device::cpu(), {2, 2, 3}, a.data(), b.data(), c.data(), 2);

    EXPECT_EQ(c, (std::vector<float>{58, 64, 139, 154}));
    EXPECT_GT(timing.seconds, 0.0);
}

TEST(Gemm, DoubleRectangularProductMatchesTheReference)
{
    const GemmShape shape{37, 19, 53};
    std::vector<double> a(shape.m * shape.k), b(shape.k * shape.n), c(shape.m * shape.n);
    fill_seeded(a.data(), a.size(), 1, 0, -1.0, 1.0);
    fill_seeded(b.data(), b.size(), 2, 0, -1.0, 1.0);

    gemm(Device::cpu(), shape, a.data(), b.data(), c.data(), 1);

    EXPECT_LT(reference::relative_error(c, reference::gemm(shape, a.data(), b.data())), 1e-13);
}

TEST(Gemm, RefusesNonPositiveSizesNamingTheField)
{
    std::vector<float> x(4);

    try {
        cpu::gemm(Device::cpu(), {2, 0, 2}, x.data(), x.data(), x.data(), 1);
        FAIL() << "n = 0 was accepted";
    } catch (const InvalidKernelArgument& e) {
        EXPECT_EQ(e.field(), "n");
    }
    EXPECT_THROW(cpu::gemm(Device::cpu(), {2, 2, 2}, x.data(), x.data(), x.data(), 0), InvalidKernelArgument);
}

TEST(Gemm, RefusesBuffersLargerThanHostMemoryBeforeAllocating)
{
    try {
        validate_gemm({1'000'000'000, 1'000'000'000, 1'000}, 1, sizeof(double));
        FAIL() << "a 8 EB product was accepted";
    } catch (const InvalidKernelArgument& e) {
        EXPECT_NE(std::string(e.what()).find("bytes of host memory"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("available"), std::string::npos) << e.what();
    }
}

}  // namespace
