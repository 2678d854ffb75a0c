#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/device.hpp"

namespace shardrun::kernels {

/** A batch of `images` float32 images of height × width, blurred with a Gaussian of `sigma` pixels. */
struct BlurShape {
    std::int64_t images = 0;
    std::int64_t height = 0;
    std::int64_t width = 0;
    double sigma = 0.0;
};

/** Largest sigma accepted: the CUDA tiles keep the radius (3·sigma) in shared memory. */
constexpr double blur_max_sigma = 60.0;

/** Throws InvalidKernelArgument for sizes <= 0, sigma <= 0, non-finite or > blur_max_sigma, or too much memory. */
void validate_blur(const BlurShape& shape);

/** The 2·radius+1 normalised taps, radius = ceil(3·sigma). */
std::vector<float> blur_weights(double sigma);

#define SHARDRUN_DECLARE_BLUR_KERNEL \
    void blur(const Device& device, const BlurShape& shape, const float* input, float* output)

namespace cpu {
/** Separable; the CPU fuses the x and y passes through a per-thread ring of rows; OpenMP over row ranges. */
SHARDRUN_DECLARE_BLUR_KERNEL;
}  // namespace cpu

namespace cuda {
/** Separable with shared-memory tiles (row segments, then column tiles) on the rank's stream. */
SHARDRUN_DECLARE_BLUR_KERNEL;
}  // namespace cuda

/** The CUDA backend's entry for blur (kernels/common/cuda_kernel_list.hpp.in says how). */
#define SHARDRUN_BLUR_CUDA_TABLE(X) \
    X(cuda, blur, blur, "blur", SHARDRUN_DECLARE_BLUR_KERNEL, (device, shape, input, output))

inline SHARDRUN_DECLARE_BLUR_KERNEL
{
    switch (device.kind) {
    case DeviceKind::cuda: return cuda::blur(device, shape, input, output);
    case DeviceKind::cpu: break;
    }
    cpu::blur(device, shape, input, output);
}

namespace reference {
/** What blur computes: a direct 2-D Gaussian convolution (float64 weights, clamped borders; blur_check.cpp). */
std::vector<double> blur(const BlurShape& shape, const float* input);
}  // namespace reference

}  // namespace shardrun::kernels
