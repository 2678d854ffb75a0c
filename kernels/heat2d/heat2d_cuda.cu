#include <cstring>
#include <utility>

#include "kernels/common/checks.hpp"
#include "kernels/common/cuda_check.cuh"
#include "kernels/heat2d/heat2d.hpp"
#include "kernels/heat2d/heat2d_element.hpp"

namespace shardrun::kernels::cuda {
namespace {

__global__ void heat2d_step(std::int64_t nx, std::int64_t ny, double r, double dt_source, const double* current,
                            double* next)
{
    const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x + 1;
    const std::int64_t j = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y + 1;
    if (i >= nx - 1 || j >= ny - 1) return;
    const std::int64_t c = j * nx + i;
    next[c] = heat2d_point(current[c], current[c - nx], current[c + nx], current[c + 1], current[c - 1], r, dt_source);
}

}  // namespace

void heat2d(const Device& device, const Heat2dParams& params, double* field)
{
    validate_heat2d(params);
    const std::int64_t nx = params.nx, ny = params.ny;
    const std::size_t count = static_cast<std::size_t>(nx * ny);
    const double h = heat2d_spacing(params);
    const double r = params.alpha * params.dt / (h * h), dt_source = params.dt * params.source;
    const cudaStream_t stream = rank_stream(device.ordinal);
    require_device_memory(2 * count * sizeof(double), "heat2d");
    DeviceBuffer<double> a(count), b(count);
    PinnedBuffer<double> staging(count);
    std::memcpy(staging.get(), field, count * sizeof(double));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(a.get(), staging.get(), a.bytes(), cudaMemcpyHostToDevice, stream));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), a.bytes(), cudaMemcpyDeviceToDevice, stream));
    const dim3 block(32, 8);
    const dim3 grid(static_cast<unsigned>((nx - 2 + block.x - 1) / block.x),
                    static_cast<unsigned>((ny - 2 + block.y - 1) / block.y));
    double* current = a.get();
    double* next = b.get();
    for (std::int64_t step = 0; step < params.steps; ++step) {
        // Between launches: the launch queue is bounded, so the host stays at most a queue ahead
        // of the GPU, and a stop ends the kernel that long after it is set.
        if (step % 64 == 0) device.stop.throw_if_stopped("heat2d");
        heat2d_step<<<grid, block, 0, stream>>>(nx, ny, r, dt_source, current, next);
        SHARDRUN_CUDA_CHECK_LAUNCH();
        std::swap(current, next);
    }
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(staging.get(), current, a.bytes(), cudaMemcpyDeviceToHost, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(field, staging.get(), count * sizeof(double));
}

}  // namespace shardrun::kernels::cuda
