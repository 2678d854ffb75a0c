// Part of libshardrun_cuda.so: the one symbol through which the binary reaches the CUDA kernels.
#include "kernels/common/cuda_backend.hpp"

namespace shardrun::kernels::cuda {
namespace {

KernelTable make_table()
{
    KernelTable table;
    table.query_runtime = &query_runtime;
    table.device_name = &device_name;
    table.device_allocate = &device_allocate;
    table.device_free = &device_free;
    table.copy_host_to_device = &copy_host_to_device;
    table.copy_device_to_host = &copy_device_to_host;
    table.compute_stream = &compute_stream;
    table.order_after = &order_after;
    // The entry's type picks the overload (gemm's float and double).
#define SHARDRUN_KERNEL_TABLE_FILL(scope, member, function, label, declare, arguments) \
    table.member = &kernels::scope::function;
    SHARDRUN_CUDA_KERNELS(SHARDRUN_KERNEL_TABLE_FILL)
#undef SHARDRUN_KERNEL_TABLE_FILL
    return table;
}

}  // namespace
}  // namespace shardrun::kernels::cuda

/** nullptr when the caller expects another table layout, so it can refuse with a clear message. */
extern "C" __attribute__((visibility("default"))) const shardrun::kernels::cuda::KernelTable*
shardrun_cuda_kernel_table(std::uint32_t abi_version)
{
    static const auto table = shardrun::kernels::cuda::make_table();
    return abi_version == shardrun::kernels::cuda::kernel_table_abi_version ? &table : nullptr;
}
