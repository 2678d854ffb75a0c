#include <cuda_bf16.h>

#include <chrono>
#include <vector>

#include "kernels/common/checks.hpp"
#include "kernels/common/cuda_check.cuh"
#include "kernels/device_check/device_check.hpp"

namespace shardrun::kernels::cuda {
namespace {

/** Two events on the rank's stream around one call; destroyed on scope exit. */
class EventPair {
public:
    EventPair()
    {
        SHARDRUN_CUDA_CHECK(cudaEventCreate(&start_));
        SHARDRUN_CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~EventPair()
    {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    EventPair(const EventPair&) = delete;
    EventPair& operator=(const EventPair&) = delete;

    /** Device seconds of `launch` on `stream`. */
    template <typename Launch>
    double time(cudaStream_t stream, Launch launch)
    {
        SHARDRUN_CUDA_CHECK(cudaEventRecord(start_, stream));
        launch();
        SHARDRUN_CUDA_CHECK(cudaEventRecord(stop_, stream));
        SHARDRUN_CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0.0f;
        SHARDRUN_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return ms / 1e3;
    }

private:
    cudaEvent_t start_{}, stop_{};
};

/** One warm-up, then until half the budget of wall time is spent (3..1000 runs); the median device time. */
template <typename Launch>
std::pair<double, int> repeat_for(cudaStream_t stream, double budget_seconds, Launch launch)
{
    EventPair events;
    events.time(stream, launch);  // kernel load, cuBLAS heuristics, clocks up
    std::vector<double> seconds;
    const auto started = std::chrono::steady_clock::now();
    const auto spent = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
    while (seconds.size() < 3 || (seconds.size() < 1000 && spent() < budget_seconds / 2)) {
        seconds.push_back(events.time(stream, launch));
    }
    const int count = static_cast<int>(seconds.size());
    return {median_seconds(seconds.data(), count), count};
}

// The operands are left as cudaMemset made them (zeros): a GEMM's time does not depend on its values.
struct GemmTypes {
    cudaDataType_t data;
    cublasComputeType_t compute;
    std::size_t element_size;
};

GemmTypes gemm_types(CheckPrecision precision)
{
    switch (precision) {
    case CheckPrecision::bf16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, sizeof(__nv_bfloat16)};
    case CheckPrecision::fp32: return {CUDA_R_32F, CUBLAS_COMPUTE_32F, sizeof(float)};
    case CheckPrecision::fp64: break;
    }
    return {CUDA_R_64F, CUBLAS_COMPUTE_64F, sizeof(double)};
}

}  // namespace

SHARDRUN_DECLARE_DEVICE_CHECK_KERNEL
{
    require_positive("n", n);
    require_positive("copy_bytes", copy_bytes);
    const cudaStream_t stream = rank_stream(device.ordinal);
    const cublasHandle_t handle = rank_cublas(device.ordinal);
    const auto types = gemm_types(precision);
    const auto elements = static_cast<std::size_t>(n * n);
    const auto copy = static_cast<std::size_t>(copy_bytes);
    require_device_memory(3 * elements * types.element_size + 2 * copy, "gpu_admission");
    DeviceCheckTiming timing;
    {
        DeviceBuffer<char> a(elements * types.element_size), b(elements * types.element_size), c(elements * types.element_size);
        for (auto* buffer : {&a, &b, &c}) SHARDRUN_CUDA_CHECK(cudaMemsetAsync(buffer->get(), 0, buffer->bytes(), stream));
        const double one64 = 1.0, zero64 = 0.0;
        const float one32 = 1.0f, zero32 = 0.0f;
        const bool wide = precision == CheckPrecision::fp64;
        const void* alpha = wide ? static_cast<const void*>(&one64) : static_cast<const void*>(&one32);
        const void* beta = wide ? static_cast<const void*>(&zero64) : static_cast<const void*>(&zero32);
        const int m = static_cast<int>(n);
        const auto [seconds, repeats] = repeat_for(stream, budget_seconds, [&] {
            // C = A·B, n x n, the same call for every precision (tensor cores where the type has them)
            SHARDRUN_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, alpha, a.get(), types.data, m,
                                               b.get(), types.data, m, beta, c.get(), types.data, m, types.compute,
                                               CUBLAS_GEMM_DEFAULT));
        });
        const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
        timing.gemm_seconds = seconds;
        timing.gemm_repeats = repeats;
        timing.gemm_tflops = seconds > 0 ? flops / seconds / 1e12 : 0;
    }
    DeviceBuffer<char> from(copy), to(copy);
    SHARDRUN_CUDA_CHECK(cudaMemsetAsync(from.get(), 1, copy, stream));
    const auto [seconds, repeats] = repeat_for(stream, budget_seconds, [&] {
        SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(to.get(), from.get(), copy, cudaMemcpyDeviceToDevice, stream));
    });
    timing.copy_seconds = seconds;
    timing.copy_repeats = repeats;
    timing.copy_gbps = seconds > 0 ? static_cast<double>(copy) / seconds / 1e9 : 0;
    return timing;
}

}  // namespace shardrun::kernels::cuda
