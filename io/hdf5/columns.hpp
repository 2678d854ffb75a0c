#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5/handle.hpp"

namespace shardrun::io::hdf5 {

/** Creates group `name` under `parent` (or opens it when it exists). */
Group ensure_group(hid_t parent, const std::string& name);

/** True when `path` (e.g. "results/energy") names a link under `parent`. */
bool has_link(hid_t parent, const std::string& path);

/**
 * Creates the 1-D dataset `name` of `count` elements of `file_type` and writes `data`
 * (in `mem_type`). Contiguous: columns are written once and read whole.
 */
Dataset write_column(hid_t parent, const std::string& name, hid_t file_type, hid_t mem_type, const void* data,
                     std::size_t count);

/** Writes a 1-D dataset of variable-length UTF-8 strings (for user values of any length). */
Dataset write_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values);

/**
 * Writes a 1-D dataset of fixed-length, null-padded UTF-8 strings as wide as the longest
 * value. For short repetitive columns (host, device): one contiguous write and read,
 * where variable-length strings cost a global-heap object per row.
 */
Dataset write_fixed_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values);

/** A fixed-length, null-padded UTF-8 string type of `width` bytes. */
Datatype fixed_string_type(std::size_t width);

/** Element count of the 1-D dataset `name` (first extent for N-D). */
std::size_t column_length(hid_t parent, const std::string& name);
/** The same for an open dataset. */
std::size_t dataset_length(hid_t dataset);

/** The extent of every axis of a dataset (empty for a scalar). */
std::vector<hsize_t> dataset_extents(hid_t dataset);

/** Reads the whole 1-D dataset `name` as `mem_type` into `out` (resized to its length). */
template <typename T>
std::vector<T> read_column(hid_t parent, const std::string& name, hid_t mem_type)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
    std::vector<T> values(dataset_length(dataset.get()));
    if (!values.empty()) {
        SHARDRUN_H5_CHECK(H5Dread(dataset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()));
    }
    return values;
}

/** Reads a 1-D dataset of strings, variable- or fixed-length. */
std::vector<std::string> read_strings(hid_t parent, const std::string& name);

}  // namespace shardrun::io::hdf5
