#include "kernels/common/errors.hpp"
#include "kernels/common/stream_order.hpp"

namespace shardrun::kernels {

void* compute_stream(const Device& device)
{
    if (device.kind == DeviceKind::cuda) throw NotCompiled("this shardrun was built without CUDA; use device: cpu");
    return nullptr;
}

void order_after(void*, void*) { throw NotCompiled("this shardrun was built without CUDA; use device: cpu"); }

}  // namespace shardrun::kernels
