#include "collectives/nccl/nccl_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

namespace shardrun::collectives::nccl {
namespace {

#ifdef SHARDRUN_WITH_NCCL
// The same places, in the same order, as kernels/common/cuda_backend.cpp looks: the two layers
// load one library (dlopen returns the same handle) but may not depend on each other.
std::string backend_path()
{
    if (const char* chosen = std::getenv("SHARDRUN_CUDA_BACKEND"); chosen != nullptr && *chosen != '\0') return chosen;
    std::vector<std::string> paths;
    std::string exe(4096, '\0');
    if (const auto n = ::readlink("/proc/self/exe", exe.data(), exe.size()); n > 0) {
        exe.resize(static_cast<std::size_t>(n));
        const auto dir = exe.substr(0, exe.rfind('/'));
        paths.push_back(dir + "/libshardrun_cuda.so");
        paths.push_back(dir + "/" SHARDRUN_CUDA_BACKEND_INSTALL_RELATIVE "/libshardrun_cuda.so");
    }
    for (const auto& path : paths) {
        if (::access(path.c_str(), F_OK) == 0) return path;
    }
    return SHARDRUN_CUDA_BACKEND_BUILD_PATH;
}

struct Loaded {
    const NcclTable* table = nullptr;
    std::string error;
};

Loaded load()
{
    const auto path = backend_path();
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return {nullptr, ::dlerror()};
    using Getter = const NcclTable* (*)(std::uint32_t);
    const auto getter = reinterpret_cast<Getter>(::dlsym(handle, nccl_table_symbol));
    if (getter == nullptr) return {nullptr, path + ": no " + nccl_table_symbol + " (not a shardrun CUDA backend)"};
    const NcclTable* table = getter(nccl_table_abi_version);
    if (table == nullptr || table->size != sizeof(NcclTable)) {
        return {nullptr, path + " is from another shardrun build (NCCL table version " +
                             std::to_string(nccl_table_abi_version) + " expected); rebuild or reinstall both"};
    }
    return {table, ""};
}

std::atomic<bool> loaded{false};
#endif

}  // namespace

const NcclTable* nccl_table(std::string& error)
{
#ifdef SHARDRUN_WITH_NCCL
    static const Loaded result = [] {
        auto outcome = load();
        loaded.store(outcome.table != nullptr, std::memory_order_release);
        return outcome;
    }();
    if (result.table == nullptr) error = "needs the CUDA backend libshardrun_cuda.so: " + result.error;
    return result.table;
#else
    error = "this shardrun was built without NCCL (SHARDRUN_CUDA=OFF, or no nvcc/NCCL found at configure time); "
            "rebuild with the CUDA toolkit and NCCL, or use the MPI communicator on host memory";
    return nullptr;
#endif
}

bool backend_loaded() noexcept
{
#ifdef SHARDRUN_WITH_NCCL
    return loaded.load(std::memory_order_acquire);
#else
    return false;
#endif
}

}  // namespace shardrun::collectives::nccl
