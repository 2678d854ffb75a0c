// A stand-in for libshardrun_cuda.so at the same dlopen seam (SHARDRUN_CUDA_BACKEND), for tests
// on machines without a GPU: it reports SHARDRUN_FAKE_GPUS devices (default 4), or as many as
// CUDA_VISIBLE_DEVICES names when that is set, as the CUDA runtime would. Only the runtime query,
// device names and the admission check (device_check, a slowed device) are filled in: it serves runs whose tasks are programs (exec tasks, workers,
// groups), never a kernel. scripts/gpu-check runs the real library on a GPU.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>

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

// ---- The admission check (issue 38): a device that runs at a scripted speed, and a slowed one. ----

/** The installed device of `ordinal`: the ordinal-th CUDA_VISIBLE_DEVICES entry when set, as CUDA numbers them. */
int installed_index(int ordinal)
{
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    if (visible == nullptr) return ordinal;
    std::istringstream entries(visible);
    std::string entry;
    for (int i = 0; std::getline(entries, entry, ','); ++i) {
        if (i == ordinal) return std::atoi(entry.c_str());
    }
    return ordinal;
}

/**
 * How many times longer the device of installed index `index` takes: SHARDRUN_FAKE_GPU_SLOWDOWN
 * "2=2" (device 2 takes twice as long, 0.5x speed), several as "1=1.5,3=4"; 1 for the others.
 */
double slowdown_of(int index)
{
    const char* text = std::getenv("SHARDRUN_FAKE_GPU_SLOWDOWN");
    std::istringstream entries(text != nullptr ? text : "");
    for (std::string entry; std::getline(entries, entry, ',');) {
        const auto equals = entry.find('=');
        if (equals != std::string::npos && std::atoi(entry.substr(0, equals).c_str()) == index) {
            return std::atof(entry.substr(equals + 1).c_str());
        }
    }
    return 1.0;
}

/**
 * A healthy fake device runs an n³ GEMM at 700 TFLOP/s in bf16 and 50 in fp32 and fp64 (about
 * what cuBLAS reaches on an H100 SXM, whose name the fake NVML reports) and copies at 2000 GB/s,
 * divided by its slowdown. Each call sleeps for the modelled time, which it reports as the CUDA
 * events would, so a run's admission takes about as long as on the real device.
 */
shardrun::kernels::DeviceCheckTiming fake_device_check(const shardrun::kernels::Device& device,
                                                       shardrun::kernels::CheckPrecision precision, std::int64_t n,
                                                       std::int64_t copy_bytes, double budget_seconds)
{
    const double slowdown = slowdown_of(installed_index(device.ordinal));
    const double tflops = (precision == shardrun::kernels::CheckPrecision::bf16 ? 700.0 : 50.0) / slowdown;
    const double gbps = 2000.0 / slowdown;
    shardrun::kernels::DeviceCheckTiming timing;
    timing.gemm_seconds = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / (tflops * 1e12);
    timing.gemm_tflops = tflops;
    timing.copy_seconds = static_cast<double>(copy_bytes) / (gbps * 1e9);
    timing.copy_gbps = gbps;
    // The real check's repeats: until half the budget each (at least 3, at most 1000), after a warm-up.
    const auto repeats = [&](double seconds) {
        const int fit = seconds > 0 ? static_cast<int>(budget_seconds / 2 / seconds) : 1000;
        return fit < 3 ? 3 : fit > 1000 ? 1000 : fit;
    };
    timing.gemm_repeats = repeats(timing.gemm_seconds);
    timing.copy_repeats = repeats(timing.copy_seconds);
    const double total = (timing.gemm_repeats + 1) * timing.gemm_seconds + (timing.copy_repeats + 1) * timing.copy_seconds;
    std::this_thread::sleep_for(std::chrono::duration<double>(total));
    return timing;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const shardrun::kernels::cuda::KernelTable*
shardrun_cuda_kernel_table(std::uint32_t abi_version)
{
    static const auto table = [] {
        shardrun::kernels::cuda::KernelTable t;
        t.query_runtime = &fake_query_runtime;
        t.device_name = &fake_device_name;
        t.device_check = &fake_device_check;
        return t;
    }();
    return abi_version == shardrun::kernels::cuda::kernel_table_abi_version ? &table : nullptr;
}
