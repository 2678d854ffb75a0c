// A stand-in for libshardrun_cuda.so at the same dlopen seam (SHARDRUN_CUDA_BACKEND), for tests
// on machines without a GPU: it reports SHARDRUN_FAKE_GPUS devices (default 4), or as many as
// CUDA_VISIBLE_DEVICES names when that is set, as the CUDA runtime would. Only the runtime query
// and device names are filled in: it serves runs whose tasks are programs (exec tasks, workers,
// groups), never a kernel. scripts/gpu-check runs the real library on a GPU.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/common/cuda_backend.hpp"

namespace {

using shardrun::kernels::CudaRuntimeInfo;

int visible_devices()
{
    const char* fake = std::getenv("SHARDRUN_FAKE_GPUS");
    const int installed = fake != nullptr && *fake != '\0' ? std::atoi(fake) : 4;
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    if (visible == nullptr) return installed;
    const std::string list(visible);
    if (list.empty()) return 0;
    int count = 1;
    for (const char c : list) count += c == ',' ? 1 : 0;
    return count < installed ? count : installed;
}

// With SHARDRUN_FAKE_CUDA_ENV_LOG set, one line per query of what the CUDA runtime would read
// when it initialises (MPS and MIG binding must be in the rank's environment by then).
void record_environment()
{
    const char* path = std::getenv("SHARDRUN_FAKE_CUDA_ENV_LOG");
    if (path == nullptr) return;
    std::string line;
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "CUDA_VISIBLE_DEVICES", "CUDA_MPS_PIPE_DIRECTORY",
                             "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"}) {
        const char* value = std::getenv(name);
        line += std::string(line.empty() ? "" : " ") + name + "=" + (value != nullptr ? value : "");
    }
    if (FILE* file = std::fopen(path, "a")) {
        std::fputs((line + "\n").c_str(), file);
        std::fclose(file);
    }
}

CudaRuntimeInfo fake_query_runtime()
{
    record_environment();
    CudaRuntimeInfo info;
    info.compiled = true;
    info.loaded = true;
    info.device_count = visible_devices();
    info.runtime_version = 13000;
    info.driver_version = 13000;
    info.cublas_version = "fake";
    if (info.device_count == 0) info.no_device_reason = "fake backend: no device visible";
    return info;
}

std::string fake_device_name(int ordinal) { return "Fake GPU " + std::to_string(ordinal); }

}  // namespace

extern "C" __attribute__((visibility("default"))) const shardrun::kernels::cuda::KernelTable*
shardrun_cuda_kernel_table(std::uint32_t abi_version)
{
    static const auto table = [] {
        shardrun::kernels::cuda::KernelTable t;
        t.query_runtime = &fake_query_runtime;
        t.device_name = &fake_device_name;
        return t;
    }();
    return abi_version == shardrun::kernels::cuda::kernel_table_abi_version ? &table : nullptr;
}
