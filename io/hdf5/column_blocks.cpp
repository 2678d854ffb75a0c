#include "io/hdf5/column_blocks.hpp"

#include <cstring>

#include "io/hdf5/columns.hpp"
#include "io/hdf5/types.hpp"

namespace shardrun::io::hdf5 {
namespace {

/** The file space of `dataset` with [first, first + count) selected, and a memory space of `count`. */
std::pair<Dataspace, Dataspace> block_spaces(hid_t dataset, std::uint64_t first, std::size_t count)
{
    auto file_space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset));
    const hsize_t start = first;
    const hsize_t extent = count;
    SHARDRUN_H5_CHECK(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &extent, nullptr));
    auto memory_space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, nullptr));
    return {std::move(file_space), std::move(memory_space)};
}

}  // namespace

Dataset create_growing_column(hid_t parent, const char* name, hid_t file_type, hsize_t chunk_rows)
{
    const hsize_t extent = 0, limit = H5S_UNLIMITED;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, &limit));
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_CREATE));
    SHARDRUN_H5_CHECK(H5Pset_chunk(dcpl.get(), 1, &chunk_rows));
    return SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
}

void append_column_block(hid_t dataset, hid_t mem_type, std::uint64_t rows, std::size_t count, const void* data)
{
    const hsize_t extent = rows + count;
    SHARDRUN_H5_CHECK(H5Dset_extent(dataset, &extent));
    write_column_block(dataset, mem_type, rows, count, data);
}

Dataset create_column(hid_t parent, const std::string& name, hid_t file_type, std::uint64_t count)
{
    const hsize_t extent = count;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, nullptr));
    return SHARDRUN_H5_OPEN(Dataset,
                            H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

void write_column_block(hid_t dataset, hid_t mem_type, std::uint64_t first, std::size_t count, const void* data)
{
    if (count == 0) return;
    // file, memory; not a structured binding: the check macro's lambda captures it (clang 14 refuses)
    const auto spaces = block_spaces(dataset, first, count);
    SHARDRUN_H5_CHECK(H5Dwrite(dataset, mem_type, spaces.second.get(), spaces.first.get(), H5P_DEFAULT, data));
}

void write_strings_block(hid_t dataset, std::uint64_t first, const std::vector<std::string>& values)
{
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const auto& value : values) pointers.push_back(value.c_str());
    const auto type = vlen_string_type();
    write_column_block(dataset, type.get(), first, values.size(), pointers.data());
}

std::vector<const char*> PackedTexts::pointers() const
{
    std::vector<const char*> out;
    out.reserve(offsets_.size());
    for (const auto offset : offsets_) out.push_back(bytes_.data() + offset);
    return out;
}

void write_strings_block(hid_t dataset, std::uint64_t first, const PackedTexts& values)
{
    const auto pointers = values.pointers();
    const auto type = vlen_string_type();
    write_column_block(dataset, type.get(), first, pointers.size(), pointers.data());
}

void read_column_block(hid_t dataset, hid_t mem_type, std::uint64_t first, std::size_t count, void* out)
{
    if (count == 0) return;
    // file, memory; not a structured binding: the check macro's lambda captures it (clang 14 refuses)
    const auto spaces = block_spaces(dataset, first, count);
    SHARDRUN_H5_CHECK(H5Dread(dataset, mem_type, spaces.second.get(), spaces.first.get(), H5P_DEFAULT, out));
}

std::vector<std::string> read_strings_block(hid_t dataset, std::uint64_t first, std::size_t count)
{
    std::vector<std::string> values;
    values.reserve(count);
    auto file_type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset));
    if (SHARDRUN_H5_CHECK(H5Tis_variable_str(file_type.get())) == 0) {
        const std::size_t width = H5Tget_size(file_type.get());
        const auto type = fixed_string_type(width);
        std::vector<char> packed(count * width);
        read_column_block(dataset, type.get(), first, count, packed.data());
        for (std::size_t i = 0; i < count; ++i) values.emplace_back(packed.data() + i * width, strnlen(packed.data() + i * width, width));
        return values;
    }
    const auto type = vlen_string_type();
    std::vector<char*> pointers(count, nullptr);
    read_column_block(dataset, type.get(), first, count, pointers.data());
    for (char* text : pointers) {
        values.emplace_back(text ? text : "");
        H5free_memory(text);
    }
    return values;
}

}  // namespace shardrun::io::hdf5
