#include "kernels/common/cuda_check.cuh"
#include "kernels/common/cuda_backend.hpp"

namespace shardrun::kernels::cuda {

void* compute_stream(const Device& device)
{
    return device.kind == DeviceKind::cuda ? static_cast<void*>(rank_stream(device.ordinal)) : nullptr;
}

void order_after(void* waiter, void* producer)
{
    cudaEvent_t event;
    SHARDRUN_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    SHARDRUN_CUDA_CHECK(cudaEventRecord(event, static_cast<cudaStream_t>(producer)));
    SHARDRUN_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter), event, 0));
    // Destroying a recorded event is safe: the wait keeps what it needs.
    SHARDRUN_CUDA_CHECK(cudaEventDestroy(event));
}

}  // namespace shardrun::kernels::cuda
