// kernels::DeviceBuffer: host-memory round trips run everywhere (suite DeviceBuffer); CUDA
// round trips (suite DeviceBufferCuda) skip with the reason where no GPU is found.
#include "kernels/common/device_buffer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "kernels/common/cuda_runtime.hpp"
#include "kernels/common/errors.hpp"

namespace shardrun::kernels {
namespace {

std::vector<std::int32_t> counting(std::size_t count, std::int32_t first = 1)
{
    std::vector<std::int32_t> values(count);
    std::iota(values.begin(), values.end(), first);
    return values;
}

std::vector<std::int32_t> read_back(const DeviceBuffer& buffer)
{
    std::vector<std::int32_t> values(buffer.bytes() / sizeof(std::int32_t));
    buffer.copy_to_host(std::span<std::int32_t>(values));
    return values;
}

TEST(DeviceBuffer, CpuRoundTripReturnsTheValues)
{
    const auto values = counting(100);
    DeviceBuffer buffer(Device::cpu(), values.size() * sizeof(std::int32_t));

    buffer.copy_from_host(std::span<const std::int32_t>(values));

    EXPECT_EQ(read_back(buffer), values);
    EXPECT_EQ(buffer.bytes(), 400u);
    EXPECT_EQ(buffer.device().kind, DeviceKind::cpu);
}

TEST(DeviceBuffer, CopyAtAnOffsetTouchesOnlyItsRange)
{
    DeviceBuffer buffer(Device::cpu(), 4 * sizeof(std::int32_t));
    buffer.copy_from_host(std::span<const std::int32_t>(counting(4)));
    const std::vector<std::int32_t> nines{9, 9};

    buffer.copy_from_host(std::span<const std::int32_t>(nines), 1);

    EXPECT_EQ(read_back(buffer), (std::vector<std::int32_t>{1, 9, 9, 4}));
}

TEST(DeviceBuffer, CopyOutsideTheBufferIsRefused)
{
    DeviceBuffer buffer(Device::cpu(), 4);
    char bytes[8] = {};

    EXPECT_THROW(buffer.copy_from_host(bytes, 5), std::out_of_range);
    EXPECT_THROW(buffer.copy_to_host(bytes, 1, 4), std::out_of_range);
    EXPECT_THROW(buffer.copy_to_host(bytes, 2, std::numeric_limits<std::size_t>::max()), std::out_of_range);
    EXPECT_NO_THROW(buffer.copy_to_host(bytes, 0, 4));
}

TEST(DeviceBuffer, MoveHandsOverTheMemory)
{
    DeviceBuffer first(Device::cpu(), 16);
    void* memory = first.data();

    DeviceBuffer second(std::move(first));
    DeviceBuffer third;
    third = std::move(second);

    EXPECT_EQ(third.data(), memory);
    EXPECT_EQ(third.bytes(), 16u);
    EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is specified
    EXPECT_EQ(second.bytes(), 0u);     // NOLINT(bugprone-use-after-move)
}

TEST(DeviceBuffer, EmptyBufferHoldsNoMemory)
{
    const DeviceBuffer empty(Device::cpu(), 0);

    EXPECT_EQ(empty.data(), nullptr);
    EXPECT_EQ(empty.bytes(), 0u);
}

TEST(DeviceBuffer, CudaDeviceThatDoesNotExistIsRefused)
{
    const int missing = query_cuda_runtime().device_count;  // one past the last device

    // NotCompiled without CUDA, CudaError (invalid or no device) with it.
    EXPECT_THROW(DeviceBuffer buffer(Device::cuda(missing), 64), std::runtime_error);
#ifndef SHARDRUN_WITH_CUDA
    EXPECT_THROW(DeviceBuffer buffer(Device::cuda(0), 64), NotCompiled);
#endif
}

class DeviceBufferCuda : public testing::Test {
protected:
    void SetUp() override
    {
        const auto runtime = query_cuda_runtime();
        if (runtime.device_count == 0) GTEST_SKIP() << "no CUDA device: " << runtime.no_device_reason;
    }
    const Device gpu_ = Device::cuda(0);
};

TEST_F(DeviceBufferCuda, RoundTripReturnsTheValues)
{
    const auto values = counting(262147, -1000);  // 1 MiB and an odd tail
    DeviceBuffer buffer(gpu_, values.size() * sizeof(std::int32_t));

    buffer.copy_from_host(std::span<const std::int32_t>(values));

    EXPECT_EQ(read_back(buffer), values);
    EXPECT_EQ(buffer.device().kind, DeviceKind::cuda);
}

TEST_F(DeviceBufferCuda, CopyAtAnOffsetTouchesOnlyItsRange)
{
    DeviceBuffer buffer(gpu_, 40 * sizeof(std::int32_t));
    buffer.copy_from_host(std::span<const std::int32_t>(counting(40)));
    const std::vector<std::int32_t> nines(3, 9);
    auto expected = counting(40);
    std::fill(expected.begin() + 33, expected.begin() + 36, 9);

    buffer.copy_from_host(std::span<const std::int32_t>(nines), 33);

    EXPECT_EQ(read_back(buffer), expected);
}

TEST_F(DeviceBufferCuda, MoveHandsOverTheMemory)
{
    DeviceBuffer first(gpu_, 256);
    void* memory = first.data();

    DeviceBuffer second(std::move(first));

    EXPECT_EQ(second.data(), memory);
    EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move)
}

TEST_F(DeviceBufferCuda, MoreThanTheFreeMemoryIsRefusedBeforeAllocating)
{
    const std::size_t too_much = std::size_t{1} << 50;  // 1 PiB

    EXPECT_THROW(DeviceBuffer buffer(gpu_, too_much), InvalidKernelArgument);
}

}  // namespace
}  // namespace shardrun::kernels
