#pragma once

// @internal The NCCL half of the CUDA backend library (libshardrun_cuda.so): the binary loads
// it with dlopen when a task first asks for an NCCL communicator or NCCL's version, so a run
// that never does maps no NCCL or CUDA library. The library exports this layer's own getter
// (kernels/ has another), so collectives/ and kernels/ stay independent. Entries carry C++
// types and may throw NcclError: library and binary come from one build, which abi_version and
// size check.
#include <cstdint>
#include <string>

#include "collectives/nccl/nccl_communicator.hpp"
#include "collectives/nccl_version.hpp"

namespace shardrun::collectives::nccl {

/** Raise whenever an entry is added, removed or changes type. */
inline constexpr std::uint32_t nccl_table_abi_version = 1;

/** Name of the getter the library exports: `const NcclTable* (std::uint32_t abi_version)`. */
inline constexpr const char* nccl_table_symbol = "shardrun_cuda_nccl_table";

/** Every NCCL entry point of collectives/, filled in by the backend library. */
struct NcclTable {
    std::uint32_t abi_version = nccl_table_abi_version;
    std::uint32_t size = sizeof(NcclTable);

    decltype(&nccl::make_nccl_communicator) make_communicator = nullptr;
    decltype(&nccl::stream) stream = nullptr;
    decltype(&nccl::cuda_device) cuda_device = nullptr;
    decltype(&nccl::synchronize) synchronize = nullptr;
    decltype(&collectives::nccl_version) version = nullptr;
};

/** The backend's table, or nullptr with `error` set to one line saying why (thread-safe, loads once). */
const NcclTable* nccl_table(std::string& error);

/** True once nccl_table() has loaded the library in this process; never loads it. */
bool backend_loaded() noexcept;

}  // namespace shardrun::collectives::nccl
