// The CUDA backend library is loaded on first use only, and every way it can be missing is one
// clear line. Three ctest entries run this executable (tests/kernels/CMakeLists.txt), because a
// loaded library cannot be unloaded: CudaBackendUnused.* in a fresh process, CudaBackendLoaded.*
// with the library this build made, CudaBackendMissing.* with SHARDRUN_CUDA_BACKEND pointing at a
// file that does not exist.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/nccl/nccl_communicator.hpp"
#include "collectives/nccl_version.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/errors.hpp"
#include "kernels/gemm/gemm.hpp"

namespace shardrun::kernels {
namespace {

/** The CUDA, cuBLAS and NCCL libraries this process has mapped (from /proc/self/maps). */
std::vector<std::string> mapped_cuda_libraries()
{
    std::ifstream maps("/proc/self/maps");
    std::vector<std::string> found;
    for (std::string line; std::getline(maps, line);) {
        for (const char* name : {"libcudart", "libcublas", "libnccl", "libshardrun_cuda"}) {
            if (line.find(name) != std::string::npos) found.push_back(line.substr(line.rfind(' ') + 1));
        }
    }
    return found;
}

/** A one-member host group without MPI: all that make_nccl_communicator needs to reach its checks. */
class Alone final : public collectives::Communicator {
public:
    using DataType = collectives::DataType;
    using ReduceOp = collectives::ReduceOp;
    using Request = collectives::Request;

    int rank() const noexcept override { return 0; }
    int size() const noexcept override { return 1; }
    std::unique_ptr<Communicator> split(int, int) const override { unused(); }
    void barrier() override {}
    Request ibarrier() override { return {}; }
    void broadcast_raw(void*, std::size_t, DataType, int) override {}
    Request ibroadcast_raw(void*, std::size_t, DataType, int) override { return {}; }
    void allreduce_raw(const void*, void*, std::size_t, DataType, ReduceOp) override { unused(); }
    Request iallreduce_raw(const void*, void*, std::size_t, DataType, ReduceOp) override { unused(); }
    void allgather_raw(const void* send, void* recv, std::size_t count, DataType type) override
    {
        std::memcpy(recv, send, count * collectives::size_of(type));
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
    [[noreturn]] static void unused() { throw std::logic_error("Alone: not needed by the NCCL set-up"); }
};

TEST(CudaBackendUnused, CpuWorkAndCheapProbesMapNoCudaLibrary)
{
    const std::vector<float> a{1, 2, 3, 4}, b{5, 6, 7, 8};
    std::vector<float> c(4);

    gemm(Device::cpu(), GemmShape{2, 2, 2}, a.data(), b.data(), c.data(), 1);
    const auto skipped = query_cuda_runtime(CudaProbe::skip);
    DeviceBuffer host(Device::cpu(), 64);

    EXPECT_EQ(c[0], 19.0f);
    EXPECT_FALSE(skipped.loaded);
    EXPECT_EQ(skipped.device_count, 0);
    EXPECT_FALSE(skipped.no_device_reason.empty());
    EXPECT_TRUE(mapped_cuda_libraries().empty()) << mapped_cuda_libraries().front();
}

TEST(CudaBackendUnused, AutoProbeWithoutDriverLoadsNothing)
{
    std::ifstream driver("/dev/nvidiactl");
    if (driver.good()) GTEST_SKIP() << "an NVIDIA driver is present: device: auto loads the backend here";

    const auto info = query_cuda_runtime(CudaProbe::if_driver);

    EXPECT_FALSE(info.loaded);
    EXPECT_EQ(info.device_count, 0);
#ifdef SHARDRUN_WITH_CUDA
    EXPECT_NE(info.no_device_reason.find("NVIDIA driver"), std::string::npos) << info.no_device_reason;
#endif
    EXPECT_TRUE(mapped_cuda_libraries().empty()) << mapped_cuda_libraries().front();
}

TEST(CudaBackendLoaded, RealLibraryLoadsAndReportsTheDevicesOrWhyNone)
{
    const auto info = query_cuda_runtime(CudaProbe::load);

#ifdef SHARDRUN_WITH_CUDA
    ASSERT_TRUE(info.loaded) << info.no_device_reason;
    EXPECT_TRUE(info.compiled);
    EXPECT_GT(info.runtime_version, 0);
    EXPECT_FALSE(info.cublas_version.empty());
    if (info.device_count == 0) {
        EXPECT_FALSE(info.no_device_reason.empty());
        EXPECT_EQ(info.no_device_reason.find('\n'), std::string::npos) << info.no_device_reason;
    }
    EXPECT_FALSE(mapped_cuda_libraries().empty());
    EXPECT_EQ(collectives::nccl_version().front(), '2');  // NCCL 2.x, from the same library
#else
    EXPECT_FALSE(info.loaded);
    EXPECT_NE(info.no_device_reason.find("built without CUDA"), std::string::npos) << info.no_device_reason;
#endif
}

TEST(CudaBackendLoaded, ErrorsThrownInTheLibraryAreCaughtByType)
{
    const int missing = query_cuda_runtime().device_count;  // one past the last device
    Alone alone;

    // CudaError (or NotCompiled) thrown inside the library, caught here through its base.
    EXPECT_THROW(DeviceBuffer buffer(Device::cuda(missing), 64), std::runtime_error);
    EXPECT_THROW(collectives::nccl::make_nccl_communicator(alone, missing, 5.0), collectives::NcclError);
    EXPECT_THROW(collectives::nccl::stream(alone), std::invalid_argument);
}

TEST(CudaBackendMissing, EveryGpuRequestSaysSoInOneLine)
{
    Alone alone;
    const auto info = query_cuda_runtime();
    std::string buffer_error, nccl_error;

    try {
        DeviceBuffer buffer(Device::cuda(0), 64);
    } catch (const NotCompiled& error) {
        buffer_error = error.what();
    }
    try {
        collectives::nccl::make_nccl_communicator(alone, 0, 5.0);
    } catch (const collectives::NcclError& error) {
        nccl_error = error.what();
    }

    EXPECT_FALSE(info.loaded);
    EXPECT_EQ(info.device_count, 0);
#ifdef SHARDRUN_WITH_CUDA
    for (const auto& message : {info.no_device_reason, buffer_error, nccl_error}) {
        EXPECT_NE(message.find("needs the CUDA backend libshardrun_cuda.so: "), std::string::npos) << message;
        EXPECT_NE(message.find("/nonexistent/libshardrun_cuda.so"), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
    EXPECT_EQ(buffer_error.rfind("device buffer needs the CUDA backend", 0), 0u) << buffer_error;
#else
    EXPECT_NE(buffer_error.find("built without CUDA"), std::string::npos) << buffer_error;
    EXPECT_NE(nccl_error.find("built without NCCL"), std::string::npos) << nccl_error;
#endif
    EXPECT_TRUE(collectives::nccl_version().empty());
    EXPECT_TRUE(mapped_cuda_libraries().empty()) << mapped_cuda_libraries().front();
}

}  // namespace
}  // namespace shardrun::kernels
