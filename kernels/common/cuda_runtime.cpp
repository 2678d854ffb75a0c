// What the rest of the program asks about CUDA, answered without loading the backend unless the
// caller may use a GPU.
#include "kernels/common/cuda_runtime.hpp"

#include <cstdlib>

#include <unistd.h>

#include "kernels/common/cuda_backend.hpp"
#include "kernels/common/errors.hpp"
#include "kernels/common/stream_order.hpp"

namespace shardrun::kernels {
namespace {

// The driver's device nodes (Linux, WSL); without them no GPU can be used, so device: auto
// need not pay for loading cuBLAS and the CUDA runtime to learn that.
bool nvidia_driver_present()
{
    for (const char* node : {"/dev/nvidiactl", "/proc/driver/nvidia/version", "/dev/dxg"}) {
        if (::access(node, F_OK) == 0) return true;
    }
    return false;
}

}  // namespace

CudaRuntimeInfo query_cuda_runtime(CudaProbe probe)
{
#ifndef SHARDRUN_WITH_CUDA
    (void)probe;
    CudaRuntimeInfo info;
    info.no_device_reason = "this shardrun was built without CUDA (SHARDRUN_CUDA=OFF or no nvcc)";
    return info;
#else
    CudaRuntimeInfo info;
    info.compiled = true;
    if (probe == CudaProbe::skip && !cuda::backend_loaded()) {
        info.no_device_reason = "CUDA not probed (device: cpu)";
        return info;
    }
    // A backend named by SHARDRUN_CUDA_BACKEND is loaded under device: auto too: whoever names one
    // means it (the tests' stand-in GPUs, tests/support/fake_cuda_backend, run where no driver is).
    const char* named = std::getenv("SHARDRUN_CUDA_BACKEND");
    const bool backend_named = named != nullptr && *named != '\0';
    if (probe == CudaProbe::if_driver && !cuda::backend_loaded() && !backend_named && !nvidia_driver_present()) {
        info.no_device_reason = "no NVIDIA driver on this node (no /dev/nvidiactl); the CUDA backend was not loaded";
        return info;
    }
    try {
        return cuda::kernel_table("device: cuda").query_runtime();
    } catch (const NotCompiled& error) {
        info.no_device_reason = error.what();
        return info;
    }
#endif
}

std::string cuda_device_name(int ordinal)
{
    try {
        return cuda::kernel_table("cuda_device_name").device_name(ordinal);
    } catch (const NotCompiled&) {
        return "";
    }
}

void* compute_stream(const Device& device)
{
    if (device.kind == DeviceKind::cpu) return nullptr;
    return cuda::kernel_table("compute stream").compute_stream(device);
}

void order_after(void* waiter, void* producer) { cuda::kernel_table("order_after").order_after(waiter, producer); }

}  // namespace shardrun::kernels
