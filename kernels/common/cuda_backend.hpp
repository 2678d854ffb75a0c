#pragma once

// @internal The seam between the CPU build of kernels/ and the CUDA backend library
// (libshardrun_cuda.so), which the process loads with dlopen the first time a CUDA entry point
// is called, so that a CPU-only run never maps libcudart or cuBLAS (~0.09 s, ~228 MB).
//
// The library exports one C getter per layer (this one for kernels/, another for the NCCL
// backend of collectives/), so the two layers stay independent. The table's entries carry C++
// types and may throw the kernels' exceptions: the library and the binary come from one build
// of one tree, which abi_version and size check.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/common/cuda_kernel_list.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/device.hpp"

// Each kernel entry point's function type, from its declaration: a namespace of its own per
// entry holds the one declaration, so that an overloaded function (gemm) has one type.
#define SHARDRUN_KERNEL_TABLE_SIGNATURE(scope, member, function, label, declare, arguments) \
    namespace shardrun::kernels::scope::kernel_table_signature_##member {                     \
    declare;                                                                                  \
    }
SHARDRUN_CUDA_KERNELS(SHARDRUN_KERNEL_TABLE_SIGNATURE)
#undef SHARDRUN_KERNEL_TABLE_SIGNATURE

namespace shardrun::kernels::cuda {

/**
 * Raise whenever a hand-written entry is added, removed or changes type, or a type every entry
 * takes changes layout (3: Device carries its stop token); the kernels' entries change with the
 * kernel folders, which `size` catches (library and binary come from one build).
 */
inline constexpr std::uint32_t kernel_table_abi_version = 3;

/** Name of the getter the library exports: `const KernelTable* (std::uint32_t abi_version)`. */
inline constexpr const char* kernel_table_symbol = "shardrun_cuda_kernel_table";

// Implemented in the library (*_cuda.cu); the binary reaches them only through KernelTable.
CudaRuntimeInfo query_runtime();
std::string device_name(int ordinal);
void* compute_stream(const Device& device);
void order_after(void* waiter, void* producer);

/** Every CUDA entry point of kernels/, filled in by the backend library. */
struct KernelTable {
    std::uint32_t abi_version = kernel_table_abi_version;
    std::uint32_t size = sizeof(KernelTable);

    decltype(&cuda::query_runtime) query_runtime = nullptr;
    decltype(&cuda::device_name) device_name = nullptr;
    decltype(&cuda::device_allocate) device_allocate = nullptr;
    decltype(&cuda::device_free) device_free = nullptr;
    decltype(&cuda::copy_host_to_device) copy_host_to_device = nullptr;
    decltype(&cuda::copy_device_to_host) copy_device_to_host = nullptr;
    decltype(&cuda::compute_stream) compute_stream = nullptr;
    decltype(&cuda::order_after) order_after = nullptr;

    // One entry per line of the kernel folders' SHARDRUN_<NAME>_CUDA_TABLE (cuda_kernel_list.hpp).
#define SHARDRUN_KERNEL_TABLE_ENTRY(scope, member, function, label, declare, arguments) \
    decltype(&kernels::scope::kernel_table_signature_##member::function) member = nullptr;
    SHARDRUN_CUDA_KERNELS(SHARDRUN_KERNEL_TABLE_ENTRY)
#undef SHARDRUN_KERNEL_TABLE_ENTRY
};

/**
 * The backend's table, loading the library on the first call (thread-safe; later calls are a
 * load of a pointer).
 * @param what  who asks ("gemm", "device: cuda"), the start of the error message
 * @throws NotCompiled  one line: "<what> needs the CUDA backend libshardrun_cuda.so: <why>"
 *                      (not found, dlerror, wrong version), or the build has no CUDA at all
 */
const KernelTable& kernel_table(const char* what);

/** True once kernel_table() has loaded the library in this process; never loads it. */
bool backend_loaded() noexcept;

}  // namespace shardrun::kernels::cuda
