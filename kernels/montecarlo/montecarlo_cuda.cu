#include <vector>

#include "kernels/common/checks.hpp"
#include "kernels/common/cuda_check.cuh"
#include "kernels/montecarlo/montecarlo.hpp"
#include "kernels/montecarlo/montecarlo_element.hpp"

namespace shardrun::kernels::cuda {
namespace {

constexpr int threads = 256;

__global__ void path_sums(OptionParams option, std::uint64_t seed, std::int64_t first, std::int64_t count,
                          long long* block_sums)
{
    __shared__ long long sums[threads], squares[threads];
    long long sum = 0, square = 0;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * threads;
    for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(threads) + threadIdx.x; p < count; p += stride) {
        const double x = relative_call_payoff(option, path_normal(seed, static_cast<std::uint64_t>(first + p)));
        sum += quantize_payoff(x);
        square += quantize_payoff(x * x);
    }
    sums[threadIdx.x] = sum;
    squares[threadIdx.x] = square;
    __syncthreads();
    for (int half = threads / 2; half > 0; half /= 2) {  // integer tree: exact in any order
        if (threadIdx.x < half) {
            sums[threadIdx.x] += sums[threadIdx.x + half];
            squares[threadIdx.x] += squares[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        block_sums[2 * blockIdx.x] = sums[0];
        block_sums[2 * blockIdx.x + 1] = squares[0];
    }
}

}  // namespace

MonteCarloSums montecarlo_sums(const Device& device, const OptionParams& option, std::uint64_t seed,
                               std::int64_t first_path, std::int64_t path_count)
{
    validate_option(option);
    require_positive("paths", path_count);
    if (first_path < 0) SHARDRUN_THROW(InvalidKernelArgument, "paths", "montecarlo: first path must be >= 0");
    const cudaStream_t stream = rank_stream(device.ordinal);
    const std::int64_t wanted = (path_count + threads - 1) / threads;
    const int blocks = static_cast<int>(wanted < 4096 ? wanted : 4096);
    DeviceBuffer<long long> block_sums(2 * static_cast<std::size_t>(blocks));
    PinnedBuffer<long long> host_sums(2 * static_cast<std::size_t>(blocks));
    path_sums<<<blocks, threads, 0, stream>>>(option, seed, first_path, path_count, block_sums.get());
    SHARDRUN_CUDA_CHECK_LAUNCH();
    SHARDRUN_CUDA_CHECK(
        cudaMemcpyAsync(host_sums.get(), block_sums.get(), block_sums.bytes(), cudaMemcpyDeviceToHost, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
    MonteCarloSums total{path_count, 0, 0};
    for (int b = 0; b < blocks; ++b) total += MonteCarloSums{0, host_sums.get()[2 * b], host_sums.get()[2 * b + 1]};
    return total;
}

}  // namespace shardrun::kernels::cuda
