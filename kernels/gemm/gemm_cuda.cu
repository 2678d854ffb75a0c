#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/common/checks.hpp"
#include "kernels/common/cuda_check.cuh"
#include "kernels/gemm/gemm.hpp"

namespace shardrun::kernels::cuda {
namespace {

// Row-major C = A·B is column-major C^T = B^T·A^T: pass B first and swap m and n.
void cublas_call(cublasHandle_t h, const GemmShape& s, const float* a, const float* b, float* c)
{
    const float one = 1.0f, zero = 0.0f;
    SHARDRUN_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.n), static_cast<int>(s.m),
                                      static_cast<int>(s.k), &one, b, static_cast<int>(s.n), a,
                                      static_cast<int>(s.k), &zero, c, static_cast<int>(s.n)));
}

void cublas_call(cublasHandle_t h, const GemmShape& s, const double* a, const double* b, double* c)
{
    const double one = 1.0, zero = 0.0;
    SHARDRUN_CUBLAS_CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.n), static_cast<int>(s.m),
                                      static_cast<int>(s.k), &one, b, static_cast<int>(s.n), a,
                                      static_cast<int>(s.k), &zero, c, static_cast<int>(s.n)));
}

template <typename T>
GemmTiming timed_gemm(const Device& device, const GemmShape& shape, const T* a, const T* b, T* c, int repeats)
{
    validate_gemm(shape, repeats, sizeof(T));
    const std::size_t na = shape.m * shape.k, nb = shape.k * shape.n, nc = shape.m * shape.n;
    const cudaStream_t stream = rank_stream(device.ordinal);
    const cublasHandle_t handle = rank_cublas(device.ordinal);
    require_device_memory((na + nb + nc) * sizeof(T), "gemm");
    DeviceBuffer<T> da(na), db(nb), dc(nc);
    PinnedBuffer<T> staging(std::max({na, nb, nc}));
    std::memcpy(staging.get(), a, na * sizeof(T));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(da.get(), staging.get(), na * sizeof(T), cudaMemcpyHostToDevice, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(staging.get(), b, nb * sizeof(T));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(db.get(), staging.get(), nb * sizeof(T), cudaMemcpyHostToDevice, stream));
    cublas_call(handle, shape, da.get(), db.get(), dc.get());  // warm-up: kernel load and heuristics
    cudaEvent_t start{}, stop{};
    SHARDRUN_CUDA_CHECK(cudaEventCreate(&start));
    SHARDRUN_CUDA_CHECK(cudaEventCreate(&stop));
    double best = std::numeric_limits<double>::infinity();
    bool stopped = false;  // between repeats; thrown once the events are gone
    for (int r = 0; r < repeats; ++r) {
        stopped = device.stop.stop_requested();
        if (stopped) break;
        SHARDRUN_CUDA_CHECK(cudaEventRecord(start, stream));
        cublas_call(handle, shape, da.get(), db.get(), dc.get());
        SHARDRUN_CUDA_CHECK(cudaEventRecord(stop, stream));
        SHARDRUN_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        SHARDRUN_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = std::min(best, ms / 1e3);
    }
    SHARDRUN_CUDA_CHECK(cudaEventDestroy(start));
    SHARDRUN_CUDA_CHECK(cudaEventDestroy(stop));
    if (stopped) SHARDRUN_THROW(Stopped, "gemm: stopped before it finished");
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(staging.get(), dc.get(), nc * sizeof(T), cudaMemcpyDeviceToHost, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(c, staging.get(), nc * sizeof(T));
    const double flops = 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
    return {best, best > 0 ? flops / best / 1e9 : 0.0};
}

}  // namespace

GemmTiming gemm(const Device& device, const GemmShape& shape, const float* a, const float* b, float* c, int repeats)
{
    return timed_gemm(device, shape, a, b, c, repeats);
}

GemmTiming gemm(const Device& device, const GemmShape& shape, const double* a, const double* b, double* c,
                int repeats)
{
    return timed_gemm(device, shape, a, b, c, repeats);
}

}  // namespace shardrun::kernels::cuda
