#pragma once

#include "kernels/common/device.hpp"

namespace shardrun::kernels {

/** The rank's compute stream on `device` (a cudaStream_t as void*), where kernels run; nullptr on the CPU. */
void* compute_stream(const Device& device);

/**
 * Makes the CUDA stream `waiter` wait, on the GPU and without blocking the host, for
 * everything enqueued on `producer` so far (an event recorded on one, waited on by the
 * other). Both are cudaStream_t passed as void*. This is how a communicator's side stream
 * starts a bucket's allreduce only after the kernels that wrote its gradients.
 * @throws NotCompiled  in a build without CUDA
 */
void order_after(void* waiter, void* producer);

}  // namespace shardrun::kernels
