#include "io/single/row_selection.hpp"

#include <cstring>
#include <string>

#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"

namespace shardrun::io::single {

void gather_rows(const std::vector<std::byte>& data, std::size_t row_bytes, const std::vector<std::size_t>& order,
                 std::vector<std::byte>& out)
{
    out.resize(order.size() * row_bytes);
    for (std::size_t i = 0; i < order.size(); ++i) {
        std::memcpy(out.data() + i * row_bytes, data.data() + order[i] * row_bytes, row_bytes);
    }
}

void agree(const Collective& collective, herr_t status, const char* call)
{
    const int failed = status < 0 ? 1 : 0;
    const int any = collective.comm.allreduce_value(failed, base::ReduceOp::max);
    if (failed) hdf5::throw_hdf5_error(call, __FILE__, __LINE__);
    if (any) SHARDRUN_THROW(Hdf5Error, std::string(call) + " failed on another rank");
}

void write_rows(hid_t dataset, hid_t memory_type, const std::vector<hsize_t>& row_shape,
                const std::vector<std::uint64_t>& ids, const std::vector<std::size_t>& order, const void* data,
                const Collective& transfer)
{
    auto file_space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset));
    std::vector<hsize_t> memory_dims{order.size()};
    memory_dims.insert(memory_dims.end(), row_shape.begin(), row_shape.end());
    auto memory_space = SHARDRUN_H5_OPEN(
        Dataspace, H5Screate_simple(static_cast<int>(memory_dims.size()), memory_dims.data(), nullptr));
    if (order.empty()) {
        SHARDRUN_H5_CHECK(H5Sselect_none(file_space.get()));
        SHARDRUN_H5_CHECK(H5Sselect_none(memory_space.get()));
    }
    std::vector<hsize_t> start(memory_dims.size(), 0), count = memory_dims;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i + 1;
        while (j < order.size() && ids[order[j]] == ids[order[j - 1]] + 1) ++j;
        start[0] = ids[order[i]];
        count[0] = j - i;
        SHARDRUN_H5_CHECK(H5Sselect_hyperslab(file_space.get(), i == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start.data(),
                                              nullptr, count.data(), nullptr));
        i = j;
    }
    agree(transfer, H5Dwrite(dataset, memory_type, memory_space.get(), file_space.get(), transfer.transfer, data),
          "H5Dwrite");
}

void write_rows(hid_t dataset, const FieldSpec& spec, const std::vector<std::uint64_t>& ids,
                const std::vector<std::size_t>& order, const void* data, const Collective& transfer)
{
    const std::vector<hsize_t> shape(spec.shape.begin(), spec.shape.end());
    write_rows(dataset, hdf5::native_type(spec.dtype), shape, ids, order, data, transfer);
}

}  // namespace shardrun::io::single
