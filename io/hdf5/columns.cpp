#include "io/hdf5/columns.hpp"

#include <algorithm>
#include <cstring>

#include "io/hdf5/types.hpp"

namespace shardrun::io::hdf5 {

Group ensure_group(hid_t parent, const std::string& name)
{
    if (has_link(parent, name)) return SHARDRUN_H5_OPEN(Group, H5Gopen2(parent, name.c_str(), H5P_DEFAULT));
    return SHARDRUN_H5_OPEN(Group, H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

bool has_link(hid_t parent, const std::string& path)
{
    // H5Lexists fails (rather than returning false) when an intermediate group is missing.
    std::size_t slash = 0;
    while ((slash = path.find('/', slash + 1)) != std::string::npos) {
        if (SHARDRUN_H5_CHECK(H5Lexists(parent, path.substr(0, slash).c_str(), H5P_DEFAULT)) <= 0) return false;
    }
    return SHARDRUN_H5_CHECK(H5Lexists(parent, path.c_str(), H5P_DEFAULT)) > 0;
}

Dataset write_column(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type, const void* data,
                     std::size_t count)
{
    const hsize_t extent = count;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, nullptr));
    auto dataset = SHARDRUN_H5_OPEN(
        Dataset, H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (count > 0) SHARDRUN_H5_CHECK(H5Dwrite(dataset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
    return dataset;
}

Dataset write_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values)
{
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const auto& value : values) pointers.push_back(value.c_str());
    const auto type = vlen_string_type();
    return write_column(parent, name, type.get(), type.get(), pointers.data(), values.size());
}

Datatype fixed_string_type(std::size_t width)
{
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Tcopy(H5T_C_S1));
    SHARDRUN_H5_CHECK(H5Tset_size(type.get(), std::max<std::size_t>(width, 1)));
    SHARDRUN_H5_CHECK(H5Tset_strpad(type.get(), H5T_STR_NULLPAD));
    SHARDRUN_H5_CHECK(H5Tset_cset(type.get(), H5T_CSET_UTF8));
    return type;
}

Dataset write_fixed_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values)
{
    std::size_t width = 1;
    for (const auto& value : values) width = std::max(width, value.size());
    std::vector<char> packed(values.size() * width, '\0');
    for (std::size_t i = 0; i < values.size(); ++i) values[i].copy(packed.data() + i * width, width);
    const auto type = fixed_string_type(width);
    return write_column(parent, name, type.get(), type.get(), packed.data(), values.size());
}

std::size_t column_length(hid_t parent, const std::string& name)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
    return dataset_length(dataset.get());
}

std::size_t dataset_length(hid_t dataset)
{
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset));
    const int rank = SHARDRUN_H5_CHECK(H5Sget_simple_extent_ndims(space.get()));
    if (rank == 0) return 1;
    std::vector<hsize_t> dims(rank);
    SHARDRUN_H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr));
    return dims[0];
}

std::vector<hsize_t> dataset_extents(hid_t dataset)
{
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset));
    std::vector<hsize_t> dims(static_cast<std::size_t>(SHARDRUN_H5_CHECK(H5Sget_simple_extent_ndims(space.get()))));
    SHARDRUN_H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr));
    return dims;
}

namespace {

std::vector<std::string> read_fixed_strings(hid_t dataset, std::size_t width)
{
    const auto type = fixed_string_type(width);
    const auto count = dataset_length(dataset);
    std::vector<char> packed(count * width);
    if (count > 0) SHARDRUN_H5_CHECK(H5Dread(dataset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()));
    std::vector<std::string> values;
    values.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const char* text = packed.data() + i * width;
        values.emplace_back(text, strnlen(text, width));
    }
    return values;
}

}  // namespace

std::vector<std::string> read_strings(hid_t parent, const std::string& name)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
    auto file_type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
    if (SHARDRUN_H5_CHECK(H5Tis_variable_str(file_type.get())) == 0) {
        return read_fixed_strings(dataset.get(), H5Tget_size(file_type.get()));
    }
    const auto type = vlen_string_type();
    std::vector<char*> pointers(dataset_length(dataset.get()));
    if (!pointers.empty()) {
        SHARDRUN_H5_CHECK(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()));
    }
    std::vector<std::string> values;
    values.reserve(pointers.size());
    for (char* text : pointers) {
        values.emplace_back(text ? text : "");
        H5free_memory(text);
    }
    return values;
}

}  // namespace shardrun::io::hdf5
