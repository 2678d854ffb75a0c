#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/hdf5/handle.hpp"

/**
 * @file
 * A variable-length UTF-8 string column whose equal values share one global-heap object.
 *
 * HDF5 stores each variable-length element as a reference (length, heap collection, index)
 * to an object in a global heap, and H5Dwrite creates one object per element: ~40 bytes and
 * most of the time of writing a master's /tasks/host and /tasks/device, columns of a few
 * distinct values. Here only the first row of each distinct value goes through H5Dwrite;
 * every other row is a copy of that row's stored reference, written as raw chunks
 * (H5Dwrite_chunk). Readers see an ordinary variable-length string dataset (h5py `str`,
 * netCDF-C, xarray); only its layout is chunked. Caveat for writers: overwriting a row in
 * place (H5Dwrite, h5py `ds[i] = ...`) makes HDF5 free the row's old heap object, which the
 * rows of the same value share; rewrite such a column into a new dataset instead (deleting
 * the dataset frees nothing and is safe).
 */
namespace shardrun::io::hdf5 {

class InternedStringColumn {
public:
    /** Creates the 1-D dataset `name` of `count` rows under `parent`. */
    InternedStringColumn(hid_t parent, const std::string& name, std::uint64_t count);

    /** Appends the next rows (row 0 first); every row must be appended before finish(). */
    void append(const std::vector<std::string>& values);
    /** Writes the last, partial chunk. */
    void finish();

private:
    Dataset dataset_;
    std::uint64_t count_;
    std::uint64_t chunk_rows_;
    std::uint64_t appended_ = 0;
    std::size_t element_bytes_ = 0;       ///< of a stored reference, learned from the first chunk read back
    std::vector<std::byte> chunk_;        ///< the stored references of the chunk being filled
    std::vector<std::byte> references_;   ///< one stored reference per distinct value
    std::unordered_map<std::string, std::size_t> index_;  ///< value -> its reference in references_

    /** Gives each value of values[first, first + n) not seen before its stored reference (rows in one chunk). */
    void store_new_values(const std::vector<std::string>& values, std::size_t first, std::size_t n);
    void write_chunk(std::uint64_t first_row);
};

/** Writes `values` as a new interned column `name` under `parent`. */
void write_interned_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values);

}  // namespace shardrun::io::hdf5
