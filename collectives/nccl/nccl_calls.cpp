// The binary's side of the NCCL entry points: each forwards to the CUDA backend library, loading
// it on the first call. No NCCL communicator exists before then, so the accessors can answer
// "not an NCCL communicator" without loading anything.
#include <stdexcept>
#include <string>

#include "collectives/nccl/nccl_backend.hpp"

namespace shardrun::collectives::nccl {
namespace {

[[noreturn]] void not_an_nccl_communicator()
{
    throw std::invalid_argument("not an NCCL communicator (the NCCL backend is not loaded)");
}

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(Communicator& host_group, int cuda_device, double timeout_seconds)
{
    std::string error;
    if (const auto* table = nccl_table(error)) return table->make_communicator(host_group, cuda_device, timeout_seconds);
    SHARDRUN_THROW(NcclError, "NCCL communicator for group (size " + std::to_string(host_group.size()) + ", rank " +
                              std::to_string(host_group.rank()) + ", cuda:" + std::to_string(cuda_device) + "): " + error);
}

bool compiled() noexcept
{
#ifdef SHARDRUN_WITH_NCCL
    return true;
#else
    return false;
#endif
}

void* stream(const Communicator& comm)
{
    std::string error;
    if (!backend_loaded()) not_an_nccl_communicator();
    return nccl_table(error)->stream(comm);
}

int cuda_device(const Communicator& comm)
{
    std::string error;
    if (!backend_loaded()) not_an_nccl_communicator();
    return nccl_table(error)->cuda_device(comm);
}

void synchronize(Communicator& comm)
{
    std::string error;
    if (!backend_loaded()) not_an_nccl_communicator();
    nccl_table(error)->synchronize(comm);
}

}  // namespace shardrun::collectives::nccl

namespace shardrun::collectives {

std::string nccl_version()
{
    std::string error;
    const auto* table = nccl::nccl_table(error);
    return table != nullptr ? table->version() : "";
}

}  // namespace shardrun::collectives
