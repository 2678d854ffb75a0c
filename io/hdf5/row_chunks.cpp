// Large result rows as one HDF5 chunk each (row_chunks.hpp).
#include "io/hdf5/row_chunks.hpp"

#include "io/checksum/checksum.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/types.hpp"
#include "io/result_types.hpp"

namespace shardrun::io::hdf5 {

bool chunked_per_row(const FieldSpec& spec) noexcept { return !spec.item_rows && spec.bytes() >= row_chunk_min_bytes; }

PropList row_chunk_properties(const FieldSpec& spec)
{
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_CREATE));
    auto chunk = field_dims(spec, 1);
    SHARDRUN_H5_CHECK(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()));
    std::vector<std::byte> fill;
    append_fill(fill, FieldSpec{spec.name, spec.dtype, {}, {}}, 1);
    SHARDRUN_H5_CHECK(H5Pset_fill_value(dcpl.get(), native_type(spec.dtype), fill.data()));
    // Rows never written (tasks without a result) read as the fill value and take no space.
    SHARDRUN_H5_CHECK(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_INCR));
    return dcpl;
}

Dataset create_row_chunked(hid_t parent, const FieldSpec& spec, std::size_t capacity)
{
    const auto dims = field_dims(spec, capacity);
    auto max_dims = dims;
    max_dims[0] = H5S_UNLIMITED;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max_dims.data()));
    const auto dcpl = row_chunk_properties(spec);
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(parent, spec.name.c_str(), native_type(spec.dtype),
                                                        space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
    if (spec.dtype == DType::boolean) mark_bool_field(dataset.get());
    return dataset;
}

void set_row_count(hid_t dataset, const FieldSpec& spec, std::size_t rows)
{
    const auto dims = field_dims(spec, rows);
    SHARDRUN_H5_CHECK(H5Dset_extent(dataset, dims.data()));
}

void write_row_chunk(hid_t dataset, const FieldSpec& spec, std::uint64_t row, const void* data)
{
    std::vector<hsize_t> offset(spec.shape.size() + 1, 0);
    offset[0] = row;
    SHARDRUN_H5_CHECK(H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, offset.data(), spec.bytes(), data));
}

std::uint32_t row_checksum_step(std::uint32_t crc, const void* row, std::size_t bytes) noexcept
{
    const auto lanes = lane_checksum(row, bytes);
    return crc32c(crc, &lanes, sizeof lanes);
}

std::uint32_t rows_checksum(const std::vector<std::byte>& data, std::size_t row_bytes) noexcept
{
    std::uint32_t crc = 0;
    for (std::size_t at = 0; row_bytes > 0 && at + row_bytes <= data.size(); at += row_bytes) {
        crc = row_checksum_step(crc, data.data() + at, row_bytes);
    }
    return crc;
}

}  // namespace shardrun::io::hdf5
