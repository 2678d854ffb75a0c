#pragma once

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <vector>

#include "io/hdf5/handle.hpp"
#include "io/result_types.hpp"

namespace shardrun::io::hdf5 {

/** Dimensions [rows, spec.shape...] of a field dataset. */
std::vector<hsize_t> field_dims(const FieldSpec& spec, std::size_t rows);

/** Creates <parent>/<spec.name> [rows, shape...] and writes `data` (rows * spec.bytes()). */
void write_field_rows(hid_t parent, const FieldSpec& spec, const void* data, std::size_t rows);

/** Reads all rows of <parent>/<spec.name> (rows * spec.bytes() bytes). */
std::vector<std::byte> read_field_rows(hid_t parent, const FieldSpec& spec, std::size_t rows);

/** The FieldSpec (dtype, per-row shape) of the dataset <parent>/<name>; units not included. */
FieldSpec field_spec_of(hid_t parent, const std::string& name);

/**
 * Creation properties of a [T, ...] field: contiguous, allocated early, never filled (the
 * rows are written once; rows without a result get the fill value written explicitly),
 * with the fill value NaN / minimum int recorded so readers can see it.
 */
PropList field_creation_properties(const FieldSpec& spec);

/** Writes `count` rows starting at `first_row` of a [T, ...] dataset from `data`. */
void write_field_block(hid_t dataset, const FieldSpec& spec, std::size_t first_row, std::size_t count,
                       const void* data, hid_t transfer = H5P_DEFAULT);

/** Reads `count` rows starting at `first_row` of a [T, ...] dataset. */
std::vector<std::byte> read_field_block(hid_t dataset, const FieldSpec& spec, std::size_t first_row,
                                        std::size_t count);

}  // namespace shardrun::io::hdf5
