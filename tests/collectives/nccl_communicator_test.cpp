// The NCCL backend on one GPU: single-member groups run every collective on device buffers,
// and a loopback host group of two members (both this process, so both on this GPU) checks
// the same-GPU refusal. The GPU tests skip with the reason without a GPU or without NCCL.
// A real two-rank group needs two GPUs and mpiexec: `shardrun bench allreduce --backend nccl`
// (scripts/gpu-check) covers that.
#include "collectives/nccl/nccl_communicator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernels/common/cuda_runtime.hpp"
#include "kernels/common/device_buffer.hpp"

namespace shardrun::collectives {
namespace {

using kernels::Device;
using kernels::DeviceBuffer;

constexpr double timeout_seconds = 60;

/**
 * A host group without MPI: `size` members that are all this process, so every member
 * contributes what this one does (allgather repeats it, broadcast keeps it). That is all the
 * NCCL set-up asks of its host group.
 */
class LoopbackGroup final : public Communicator {
public:
    explicit LoopbackGroup(int size) : size_(size) {}

    int rank() const noexcept override { return 0; }
    int size() const noexcept override { return size_; }
    std::unique_ptr<Communicator> split(int, int) const override { unused(); }
    void barrier() override {}
    Request ibarrier() override { return {}; }
    void broadcast_raw(void*, std::size_t, DataType, int) override {}
    Request ibroadcast_raw(void*, std::size_t, DataType, int) override { return {}; }
    void allreduce_raw(const void*, void*, std::size_t, DataType, ReduceOp) override { unused(); }
    Request iallreduce_raw(const void*, void*, std::size_t, DataType, ReduceOp) override { unused(); }
    void allgather_raw(const void* send, void* recv, std::size_t count, DataType type) override
    {
        const auto bytes = count * size_of(type);
        for (int member = 0; member < size_; ++member) std::memcpy(static_cast<char*>(recv) + member * bytes, send, bytes);
    }
    Request iallgather_raw(const void* send, void* recv, std::size_t count, DataType type) override
    {
        allgather_raw(send, recv, count, type);
        return {};
    }
    void reduce_scatter_raw(const void*, void*, std::size_t, DataType, ReduceOp) override { unused(); }
    Request ireduce_scatter_raw(const void*, void*, std::size_t, DataType, ReduceOp) override { unused(); }
    void send_raw(const void*, std::size_t, DataType, int, int) override { unused(); }
    Request isend_raw(const void*, std::size_t, DataType, int, int) override { unused(); }
    void recv_raw(void*, std::size_t, DataType, int, int) override { unused(); }
    Request irecv_raw(void*, std::size_t, DataType, int, int) override { unused(); }

private:
    [[noreturn]] static void unused() { throw std::logic_error("LoopbackGroup: not needed by the NCCL set-up"); }
    int size_;
};

/** Why the GPU tests cannot run here, or "" when they can. */
std::string missing_gpu()
{
    if (!nccl::compiled()) return "this shardrun was built without NCCL";
    const auto runtime = kernels::query_cuda_runtime();
    return runtime.device_count == 0 ? "no CUDA device: " + runtime.no_device_reason : "";
}

template <typename T>
DeviceBuffer on_gpu(const std::vector<T>& values)
{
    DeviceBuffer buffer(Device::cuda(0), values.size() * sizeof(T));
    buffer.copy_from_host(std::span<const T>(values));
    return buffer;
}

template <typename T>
std::vector<T> on_host(const DeviceBuffer& buffer)
{
    std::vector<T> values(buffer.bytes() / sizeof(T));
    buffer.copy_to_host(std::span<T>(values));
    return values;
}

/** The buffer as T[] for the typed collectives (device memory: the span is never read on the host). */
template <typename T>
std::span<T> elements(DeviceBuffer& buffer)
{
    return {static_cast<T*>(buffer.data()), buffer.bytes() / sizeof(T)};
}

template <typename T>
std::vector<T> seeded(std::size_t count, T first)
{
    std::vector<T> values(count);
    std::iota(values.begin(), values.end(), first);
    return values;
}

class NcclCommunicator : public testing::Test {
protected:
    void SetUp() override
    {
        if (const auto reason = missing_gpu(); !reason.empty()) GTEST_SKIP() << reason;
        comm_ = nccl::make_nccl_communicator(host_, 0, timeout_seconds);
    }

    static constexpr std::size_t count_ = 1000;  // more than a warp, not a multiple of one
    LoopbackGroup host_{1};
    std::unique_ptr<Communicator> comm_;
};

TEST_F(NcclCommunicator, AllreduceSumOfOneMemberIsItsInput)
{
    const auto values = seeded<float>(count_, 0.5f);
    auto send = on_gpu(values);
    DeviceBuffer recv(Device::cuda(0), send.bytes());

    comm_->allreduce(std::span<const float>(elements<float>(send)), elements<float>(recv), ReduceOp::sum);

    EXPECT_EQ(on_host<float>(recv), values);
    EXPECT_EQ(comm_->size(), 1);
    EXPECT_EQ(comm_->rank(), 0);
}

TEST_F(NcclCommunicator, AllreduceAvgInPlaceKeepsIntegers)
{
    const auto values = seeded<std::int64_t>(count_, -300);
    auto data = on_gpu(values);

    comm_->allreduce(elements<std::int64_t>(data), ReduceOp::avg);

    EXPECT_EQ(on_host<std::int64_t>(data), values);
}

TEST_F(NcclCommunicator, BroadcastFromRootKeepsTheData)
{
    const auto values = seeded<double>(count_, 1.25);
    auto data = on_gpu(values);

    comm_->broadcast(elements<double>(data), 0);

    EXPECT_EQ(on_host<double>(data), values);
}

TEST_F(NcclCommunicator, AllgatherOfOneMemberIsItsBlock)
{
    const auto values = seeded<std::uint32_t>(count_, 7u);
    auto send = on_gpu(values);
    DeviceBuffer recv(Device::cuda(0), send.bytes());

    comm_->allgather(std::span<const std::uint32_t>(elements<std::uint32_t>(send)), elements<std::uint32_t>(recv));

    EXPECT_EQ(on_host<std::uint32_t>(recv), values);
}

TEST_F(NcclCommunicator, ReduceScatterOfOneMemberIsItsOnlyBlock)
{
    const auto values = seeded<float>(count_, -2.0f);
    auto send = on_gpu(values);
    DeviceBuffer recv(Device::cuda(0), send.bytes());

    comm_->reduce_scatter(std::span<const float>(elements<float>(send)), elements<float>(recv), ReduceOp::max);

    EXPECT_EQ(on_host<float>(recv), values);
}

TEST_F(NcclCommunicator, NonBlockingAllreduceCompletesThroughItsRequest)
{
    const auto values = seeded<std::int32_t>(count_, 3);
    auto data = on_gpu(values);

    auto request = comm_->iallreduce(elements<std::int32_t>(data), ReduceOp::min);
    request.wait();

    EXPECT_TRUE(request.test());
    EXPECT_EQ(on_host<std::int32_t>(data), values);
    EXPECT_NE(nccl::stream(*comm_), nullptr);
    EXPECT_EQ(nccl::cuda_device(*comm_), 0);
    EXPECT_NO_THROW(nccl::synchronize(*comm_));
}

TEST_F(NcclCommunicator, BarrierCompletes)
{
    comm_->barrier();
    auto request = comm_->ibarrier();

    EXPECT_NO_THROW(request.wait());
}

TEST_F(NcclCommunicator, SplitKeepsTheColoredMemberAndDropsTheOther)
{
    const auto values = seeded<float>(count_, 4.0f);
    auto data = on_gpu(values);

    const auto part = comm_->split(3, 0);
    const auto none = comm_->split(-1, 0);

    ASSERT_NE(part, nullptr);
    EXPECT_EQ(none, nullptr);
    EXPECT_EQ(part->size(), 1);
    part->allreduce(elements<float>(data), ReduceOp::sum);
    EXPECT_EQ(on_host<float>(data), values);
}

TEST_F(NcclCommunicator, RankOutsideTheGroupIsRefusedAndTheCommunicatorStaysUsable)
{
    auto data = on_gpu(seeded<float>(count_, 0.0f));

    EXPECT_THROW(comm_->broadcast(elements<float>(data), 1), std::invalid_argument);
    EXPECT_THROW(comm_->recv(elements<float>(data), any_source, 0), std::invalid_argument);
    EXPECT_NO_THROW(comm_->allreduce(elements<float>(data), ReduceOp::sum));
}

TEST(NcclCommunicatorSetup, TwoMembersOnOneGpuAreRefused)
{
    if (const auto reason = missing_gpu(); !reason.empty()) GTEST_SKIP() << reason;
    LoopbackGroup two_on_this_gpu(2);

    try {
        nccl::make_nccl_communicator(two_on_this_gpu, 0, timeout_seconds);
        FAIL() << "expected NcclError";
    } catch (const NcclError& error) {
        EXPECT_NE(std::string(error.what()).find("ranks 0, 1 are on the same GPU"), std::string::npos) << error.what();
    }
}

TEST(NcclCommunicatorSetup, MissingDeviceIsReportedWithTheGroup)
{
    const int missing = kernels::query_cuda_runtime().device_count;  // one past the last device
    LoopbackGroup one(1);

    try {
        nccl::make_nccl_communicator(one, missing, timeout_seconds);
        FAIL() << "expected NcclError";
    } catch (const NcclError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("size 1, rank 0, cuda:" + std::to_string(missing)), std::string::npos) << message;
        if (!nccl::compiled()) {
            EXPECT_NE(message.find("built without NCCL"), std::string::npos) << message;
        }
    }
}

TEST(NcclCommunicatorSetup, AnotherBackendHasNoStream)
{
    LoopbackGroup host(1);

    EXPECT_THROW(nccl::stream(host), std::invalid_argument);
    EXPECT_THROW(nccl::synchronize(host), std::invalid_argument);
}

}  // namespace
}  // namespace shardrun::collectives
