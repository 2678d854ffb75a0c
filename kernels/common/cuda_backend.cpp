#include "kernels/common/cuda_backend.hpp"

#include <atomic>
#include <string>

#include "base/backend_table.hpp"
#include "kernels/common/errors.hpp"

namespace shardrun::kernels::cuda {
namespace {

#ifdef SHARDRUN_WITH_CUDA
std::atomic<bool> loaded{false};

const backend::Loaded<KernelTable>& loaded_backend()
{
    static const auto result = [] {
        auto outcome = backend::load_table<KernelTable>(
            backend::library_path(SHARDRUN_CUDA_BACKEND_BUILD_PATH, SHARDRUN_CUDA_BACKEND_INSTALL_RELATIVE),
            kernel_table_symbol, kernel_table_abi_version, "kernel");
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
    const auto& result = loaded_backend();
    if (result.table != nullptr) return *result.table;
    SHARDRUN_THROW(NotCompiled, std::string(what) + " needs the CUDA backend " + backend::library_name + ": " + result.error);
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
