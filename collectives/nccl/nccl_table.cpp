// Part of libshardrun_cuda.so: the one symbol through which the binary reaches the NCCL backend.
#include "collectives/nccl/nccl_backend.hpp"

namespace shardrun::collectives::nccl {
namespace {

NcclTable make_table()
{
    NcclTable table;
    table.make_communicator = &make_nccl_communicator;
    table.stream = &stream;
    table.cuda_device = &cuda_device;
    table.synchronize = &synchronize;
    table.version = &collectives::nccl_version;
    return table;
}

}  // namespace
}  // namespace shardrun::collectives::nccl

/** nullptr when the caller expects another table layout, so it can refuse with a clear message. */
extern "C" __attribute__((visibility("default"))) const shardrun::collectives::nccl::NcclTable*
shardrun_cuda_nccl_table(std::uint32_t abi_version)
{
    static const auto table = shardrun::collectives::nccl::make_table();
    return abi_version == shardrun::collectives::nccl::nccl_table_abi_version ? &table : nullptr;
}
