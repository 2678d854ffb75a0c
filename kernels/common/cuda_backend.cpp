#include "kernels/common/cuda_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/common/errors.hpp"

namespace shardrun::kernels::cuda {
namespace {

constexpr const char* library_name = "libshardrun_cuda.so";

#ifdef SHARDRUN_WITH_CUDA
// Where the backend may be: SHARDRUN_CUDA_BACKEND alone when set (tests point it elsewhere);
// otherwise next to the executable (the build tree), in the install prefix's library folder
// beside bin/, then where this build put it (tests and tools that live in subfolders).
std::vector<std::string> candidate_paths()
{
    if (const char* chosen = std::getenv("SHARDRUN_CUDA_BACKEND"); chosen != nullptr && *chosen != '\0') {
        return {chosen};
    }
    std::vector<std::string> paths;
    std::string exe(4096, '\0');
    if (const auto n = ::readlink("/proc/self/exe", exe.data(), exe.size()); n > 0) {
        exe.resize(static_cast<std::size_t>(n));
        const auto dir = exe.substr(0, exe.rfind('/'));
        paths.push_back(dir + "/" + library_name);
        paths.push_back(dir + "/" SHARDRUN_CUDA_BACKEND_INSTALL_RELATIVE "/" + library_name);
    }
    paths.emplace_back(SHARDRUN_CUDA_BACKEND_BUILD_PATH);
    return paths;
}

struct Loaded {
    const KernelTable* table = nullptr;
    std::string error;  ///< why table is nullptr
};

Loaded load()
{
    const auto paths = candidate_paths();
    std::string path = paths.front();
    for (const auto& candidate : paths) {
        if (::access(candidate.c_str(), F_OK) == 0) {
            path = candidate;
            break;
        }
    }
    // RTLD_LOCAL: the backend's copies of shared code never interpose on the binary's.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return {nullptr, ::dlerror()};
    using Getter = const KernelTable* (*)(std::uint32_t);
    const auto getter = reinterpret_cast<Getter>(::dlsym(handle, kernel_table_symbol));
    if (getter == nullptr) return {nullptr, path + ": no " + kernel_table_symbol + " (not a shardrun CUDA backend)"};
    const KernelTable* table = getter(kernel_table_abi_version);
    if (table == nullptr || table->size != sizeof(KernelTable)) {
        return {nullptr, path + " is from another shardrun build (kernel table version " +
                             std::to_string(kernel_table_abi_version) + " expected); rebuild or reinstall both"};
    }
    return {table, ""};
}

std::atomic<bool> loaded{false};

const Loaded& backend()
{
    static const Loaded result = [] {
        auto outcome = load();
        loaded.store(outcome.table != nullptr, std::memory_order_release);
        return outcome;
    }();
    return result;
}
#endif

}  // namespace

const KernelTable& kernel_table(const char* what)
{
#ifdef SHARDRUN_WITH_CUDA
    const auto& result = backend();
    if (result.table != nullptr) return *result.table;
    SHARDRUN_THROW(NotCompiled, std::string(what) + " needs the CUDA backend " + library_name + ": " + result.error);
#else
    SHARDRUN_THROW(NotCompiled, std::string(what) + ": this shardrun was built without CUDA; use device: cpu");
#endif
}

bool backend_loaded() noexcept
{
#ifdef SHARDRUN_WITH_CUDA
    return loaded.load(std::memory_order_acquire);
#else
    return false;
#endif
}

}  // namespace shardrun::kernels::cuda
