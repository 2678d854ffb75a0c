#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/hdf5/handle.hpp"

/**
 * @file
 * Row blocks of 1-D datasets: what a master streamed in bounded memory writes and reads,
 * a block at a time, where io/hdf5/columns.hpp moves whole columns.
 */
namespace shardrun::io::hdf5 {

/** Creates the contiguous 1-D dataset `name` of `count` elements of `file_type`, unwritten. */
Dataset create_column(hid_t parent, const std::string& name, hid_t file_type, std::uint64_t count);

/**
 * Creates the empty 1-D dataset `name` of `file_type`, chunked by `chunk_rows` and growing
 * without limit: a table appended a block at a time whose length is known only at the end.
 */
Dataset create_growing_column(hid_t parent, const char* name, hid_t file_type, hsize_t chunk_rows = 4096);

/** Appends `count` elements of `data` (in `mem_type`) to the growing 1-D dataset, which holds `rows`. */
void append_column_block(hid_t dataset, hid_t mem_type, std::uint64_t rows, std::size_t count, const void* data);

/** Writes `count` elements of `data` (in `mem_type`) at `first` of a 1-D dataset. */
void write_column_block(hid_t dataset, hid_t mem_type, std::uint64_t first, std::size_t count, const void* data);

/**
 * Writes strings at `first` of a 1-D variable-length string dataset. An empty string is an
 * empty heap object, not HDF5's nil string: netCDF-C reads a nil string as a NULL pointer
 * (`ncdump` prints NIL), which a C reader's strlen() would crash on.
 */
void write_strings_block(hid_t dataset, std::uint64_t first, const std::vector<std::string>& values);

/**
 * Texts packed in one buffer, each ended by a NUL: a column of short strings built without a
 * std::string (an allocation) per row. Written by write_strings_block() below.
 */
class PackedTexts {
public:
    void push_back(std::string_view text)
    {
        offsets_.push_back(bytes_.size());
        bytes_.append(text);
        bytes_.push_back('\0');
    }
    std::size_t size() const noexcept { return offsets_.size(); }
    /** The NUL-ended texts, valid until the next push_back(). */
    std::vector<const char*> pointers() const;

private:
    std::string bytes_;
    std::vector<std::size_t> offsets_;
};

/** write_strings_block() of packed texts (the same empty-string rule). */
void write_strings_block(hid_t dataset, std::uint64_t first, const PackedTexts& values);

/** Reads `count` elements at `first` of the 1-D dataset `name` as `mem_type` into `out`. */
void read_column_block(hid_t dataset, hid_t mem_type, std::uint64_t first, std::size_t count, void* out);

template <typename T>
std::vector<T> read_column_block(hid_t dataset, hid_t mem_type, std::uint64_t first, std::size_t count)
{
    std::vector<T> values(count);
    read_column_block(dataset, mem_type, first, count, values.data());
    return values;
}

/** Reads `count` strings at `first` of a 1-D string dataset, variable- or fixed-length. */
std::vector<std::string> read_strings_block(hid_t dataset, std::uint64_t first, std::size_t count);

}  // namespace shardrun::io::hdf5
