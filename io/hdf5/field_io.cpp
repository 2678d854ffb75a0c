#include "io/hdf5/field_io.hpp"

#include "io/hdf5/types.hpp"
#include "io/result_types.hpp"

namespace shardrun::io::hdf5 {
namespace {

/** Selects rows [first, first + count) of a [T, ...] dataspace. */
void select_rows(hid_t space, const FieldSpec& spec, std::size_t first, std::size_t count)
{
    std::vector<hsize_t> start(spec.shape.size() + 1, 0);
    auto extent = field_dims(spec, count);
    start[0] = first;
    SHARDRUN_H5_CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr));
}

DType dtype_of(hid_t type)
{
    const auto type_class = SHARDRUN_H5_CHECK(H5Tget_class(type));
    const auto size = H5Tget_size(type);
    if (type_class == H5T_FLOAT) return size == 4 ? DType::float32 : DType::float64;
    // Only bool fields are stored as 1-byte integers (uint8 with dtype="bool").
    if (type_class == H5T_INTEGER && size == 1) return DType::boolean;
    if (type_class == H5T_INTEGER) return size == 4 ? DType::int32 : DType::int64;
    SHARDRUN_THROW(Hdf5Error, "result dataset has an unsupported type");
}

}  // namespace

std::vector<hsize_t> field_dims(const FieldSpec& spec, std::size_t rows)
{
    std::vector<hsize_t> dims{rows};
    dims.insert(dims.end(), spec.shape.begin(), spec.shape.end());
    return dims;
}

void write_field_rows(hid_t parent, const FieldSpec& spec, const void* data, std::size_t rows)
{
    const auto dims = field_dims(spec, rows);
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    const hid_t type = native_type(spec.dtype);
    auto dataset = SHARDRUN_H5_OPEN(
        Dataset, H5Dcreate2(parent, spec.name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (spec.dtype == DType::boolean) mark_bool_field(dataset.get());
    if (rows > 0) SHARDRUN_H5_CHECK(H5Dwrite(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
}

std::vector<std::byte> read_field_rows(hid_t parent, const FieldSpec& spec, std::size_t rows)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, spec.name.c_str(), H5P_DEFAULT));
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset.get()));
    if (static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())) != rows * spec.elements()) {
        SHARDRUN_THROW(Hdf5Error, "field '" + spec.name + "' has the wrong number of rows");
    }
    std::vector<std::byte> data(rows * spec.bytes());
    if (rows > 0) {
        SHARDRUN_H5_CHECK(H5Dread(dataset.get(), native_type(spec.dtype), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()));
    }
    return data;
}

FieldSpec field_spec_of(hid_t parent, const std::string& name)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset.get()));
    const int rank = SHARDRUN_H5_CHECK(H5Sget_simple_extent_ndims(space.get()));
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    SHARDRUN_H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr));
    FieldSpec spec{name, dtype_of(type.get()), {}, {}};
    for (int d = 1; d < rank; ++d) spec.shape.push_back(dims[static_cast<std::size_t>(d)]);
    return spec;
}

PropList field_creation_properties(const FieldSpec& spec)
{
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_CREATE));
    SHARDRUN_H5_CHECK(H5Pset_layout(dcpl.get(), H5D_CONTIGUOUS));
    SHARDRUN_H5_CHECK(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY));
    SHARDRUN_H5_CHECK(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER));
    std::vector<std::byte> fill;
    append_fill(fill, FieldSpec{spec.name, spec.dtype, {}, {}}, 1);
    SHARDRUN_H5_CHECK(H5Pset_fill_value(dcpl.get(), native_type(spec.dtype), fill.data()));
    return dcpl;
}

void write_field_block(hid_t dataset, const FieldSpec& spec, std::size_t first_row, std::size_t count,
                       const void* data, hid_t transfer)
{
    auto file_space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset));
    const auto dims = field_dims(spec, count);
    auto memory_space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    if (count == 0) {
        SHARDRUN_H5_CHECK(H5Sselect_none(file_space.get()));
        SHARDRUN_H5_CHECK(H5Sselect_none(memory_space.get()));
    } else {
        select_rows(file_space.get(), spec, first_row, count);
    }
    SHARDRUN_H5_CHECK(H5Dwrite(dataset, native_type(spec.dtype), memory_space.get(), file_space.get(), transfer, data));
}

std::vector<std::byte> read_field_block(hid_t dataset, const FieldSpec& spec, std::size_t first_row, std::size_t count)
{
    std::vector<std::byte> data(count * spec.bytes());
    if (count == 0) return data;
    auto file_space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset));
    select_rows(file_space.get(), spec, first_row, count);
    const auto dims = field_dims(spec, count);
    auto memory_space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    SHARDRUN_H5_CHECK(H5Dread(dataset, native_type(spec.dtype), memory_space.get(), file_space.get(), H5P_DEFAULT,
                              data.data()));
    return data;
}

}  // namespace shardrun::io::hdf5
