#pragma once

#include <hdf5.h>

#include "io/hdf5/handle.hpp"
#include "io/result_types.hpp"

namespace shardrun::io::hdf5 {

/** The native HDF5 type of a result field's elements (a predefined id: never close it). */
hid_t native_type(DType dtype);

/**
 * Whether a dataset of `type` holds a bool result field: uint8, the only 1-byte integer a result
 * field is stored as (no enum, which netCDF-C skips).
 */
bool is_bool_storage(hid_t type);

/**
 * Marks a bool result field: the attribute dtype = "bool", which xarray decodes to bool. Such a
 * field gets no _FillValue (xarray then leaves it uint8); a task without a result reads 0 = false.
 */
void mark_bool_field(hid_t dataset);

/** Variable-length UTF-8 string: what h5py reads as `str`. */
Datatype vlen_string_type();

/** int8 enum {pending, ok, failed, skipped}: h5py shows int8 with the names in its dtype. */
Datatype status_enum_type();

/** int8 enum {FALSE, TRUE}: the type h5py itself uses for numpy bool. */
Datatype bool_type();

}  // namespace shardrun::io::hdf5
