// Compiled whenever CUDA is on; runs only where a GPU exists.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "kernels/common/cuda_runtime.hpp"
#include "kernels/common/host_device.hpp"

namespace {

SHARDRUN_HOST_DEVICE inline float scaled_sum(float a, float x, float y) { return a * x + y; }

__global__ void scaled_sum_kernel(int n, float a, const float* x, float* y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = scaled_sum(a, x[i], y[i]);
}

TEST(CudaDevice, HostDeviceFunctionGivesTheSameResultOnTheGpu)
{
    const auto runtime = shardrun::kernels::query_cuda_runtime();
    if (runtime.device_count == 0) GTEST_SKIP() << "no CUDA device: " << runtime.no_device_reason;
    const int n = 1000;
    std::vector<float> x(n), y(n), expected(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.5f * i;
        y[i] = 1.0f - i;
        expected[i] = scaled_sum(3.0f, x[i], y[i]);
    }
    float *dx = nullptr, *dy = nullptr;
    ASSERT_EQ(cudaMalloc(&dx, n * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dy, n * sizeof(float)), cudaSuccess);
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);

    scaled_sum_kernel<<<(n + 255) / 256, 256>>>(n, 3.0f, dx, dy);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);

    cudaFree(dx);
    cudaFree(dy);
    for (int i = 0; i < n; ++i) EXPECT_FLOAT_EQ(y[i], expected[i]) << "at " << i;
}

}  // namespace
