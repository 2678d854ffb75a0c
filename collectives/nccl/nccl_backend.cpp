#include "collectives/nccl/nccl_backend.hpp"

#include <atomic>
#include <string>

#include "base/backend_table.hpp"

namespace shardrun::collectives::nccl {
namespace {

#ifdef SHARDRUN_WITH_NCCL
std::atomic<bool> loaded{false};
#endif

}  // namespace

const NcclTable* nccl_table(std::string& error)
{
#ifdef SHARDRUN_WITH_NCCL
    static const auto result = [] {
        auto outcome = backend::load_table<NcclTable>(
            backend::library_path(SHARDRUN_CUDA_BACKEND_BUILD_PATH, SHARDRUN_CUDA_BACKEND_INSTALL_RELATIVE),
            nccl_table_symbol, nccl_table_abi_version, "NCCL");
        loaded.store(outcome.table != nullptr, std::memory_order_release);
        return outcome;
    }();
    if (result.table == nullptr) error = std::string("needs the CUDA backend ") + backend::library_name + ": " + result.error;
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
