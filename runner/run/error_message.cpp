#include "runner/run/error_message.hpp"

#include "base/documented_error.hpp"
#include "collectives/nccl/nccl_communicator.hpp"
#include "collectives/stall_guard.hpp"
#include "io/errors.hpp"
#include "kernels/common/errors.hpp"
#include "runner/core/rank_fatal.hpp"
#include "runner/storage/rclone.hpp"

namespace shardrun::run {
namespace {

/** The pointer every error of one class shares: whatever its exact words, the fix is the same page section. */
const char* class_docs(const std::exception& error) noexcept
{
    if (dynamic_cast<const io::WriteError*>(&error)) return "docs/troubleshooting.md#disk-full";
    if (dynamic_cast<const collectives::CollectiveStall*>(&error)) return "docs/troubleshooting.md#collective-timeout";
    if (dynamic_cast<const collectives::NcclError*>(&error)) return "docs/troubleshooting.md#nccl-errors";
    if (dynamic_cast<const kernels::NotCompiled*>(&error)) return "docs/troubleshooting.md#cuda-unavailable";
    if (dynamic_cast<const kernels::CudaError*>(&error)) return "docs/troubleshooting.md#cuda-errors";
    if (dynamic_cast<const tasks::RankFatalError*>(&error)) return "docs/troubleshooting.md#worker-failures";
    if (dynamic_cast<const storage::TransferError*>(&error)) return "docs/troubleshooting.md#bucket-errors";
    return nullptr;
}

}  // namespace

const char* docs_of(const std::exception& error) noexcept
{
    if (const auto* documented = dynamic_cast<const ErrorDocs*>(&error)) return documented->docs();
    return class_docs(error);
}

std::string user_message(const std::exception& error)
{
    const char* docs = docs_of(error);
    return docs == nullptr ? std::string(error.what()) : std::string(error.what()) + " (see " + docs + ")";
}

}  // namespace shardrun::run
