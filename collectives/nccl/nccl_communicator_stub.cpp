// Built without NCCL: the factory says so, so callers never need #ifdef.
#include "collectives/nccl/nccl_communicator.hpp"

namespace shardrun::collectives::nccl {
namespace {

[[noreturn]] void not_an_nccl_communicator()
{
    // No NCCL communicator can exist in this build, so whatever was passed is another backend.
    throw std::invalid_argument("not an NCCL communicator (this shardrun was built without NCCL)");
}

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(Communicator& host_group, int cuda_device, double /*timeout_seconds*/)
{
    throw NcclError("NCCL communicator for group (size " + std::to_string(host_group.size()) + ", rank " +
                    std::to_string(host_group.rank()) + ", cuda:" + std::to_string(cuda_device) +
                    "): this shardrun was built without NCCL (SHARDRUN_CUDA=OFF, or no nvcc/NCCL found at configure "
                    "time); rebuild with the CUDA toolkit and NCCL, or use the MPI communicator on host memory");
}

bool compiled() noexcept { return false; }

void* stream(const Communicator&) { not_an_nccl_communicator(); }

int cuda_device(const Communicator&) { not_an_nccl_communicator(); }

void synchronize(Communicator&) { not_an_nccl_communicator(); }

}  // namespace shardrun::collectives::nccl
