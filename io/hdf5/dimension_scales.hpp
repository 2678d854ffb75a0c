#pragma once

#include <hdf5.h>

#include <string>

#include "io/hdf5/handle.hpp"

/**
 * netCDF-4 dimensions on plain HDF5 (the H5DS dimension-scale API of hdf5_hl), so that
 * `xr.open_dataset(path, engine="h5netcdf", group=...)` and `ncdump` read a file with no
 * options. netCDF-4 maps its model onto HDF5 like this:
 *
 * - a *dimension* is a 1-D dataset marked as a dimension scale; its name in the group is
 *   the dimension's name. With coordinate values it is also a netCDF variable (a
 *   "coordinate variable", an xarray index); without, its scale NAME is
 *   "This is a netCDF dimension but not a netCDF variable.<size>" and it holds no data.
 * - every axis of every other dataset has exactly one scale attached; a dataset with some
 *   axes attached and others not is "malformed" to h5netcdf.
 * - a dimension is visible in its group and all groups below it (netCDF scoping), so a
 *   scale in `/` may label axes of datasets in `/results`.
 * - each dimension carries a file-unique `_Netcdf4Dimid` (int32), which netCDF-C and
 *   h5netcdf use to order dimensions.
 */
namespace shardrun::io::hdf5 {

/**
 * Makes the 1-D dataset `scale` the netCDF dimension named after its link name (a
 * coordinate variable: its values are the dimension's coordinates).
 *
 * @param file  the file that holds `scale` (its dimension ids are numbered per file)
 */
void make_dimension_scale(hid_t file, hid_t scale);

/**
 * Creates a dimension `name` of `size` in `group` without coordinate values (netCDF's
 * "dimension but not a variable"): an empty float32 dataset, no storage allocated.
 *
 * @param file  the file that holds `group`
 * @return the scale, to pass to attach_dimension_scale()
 */
Dataset create_bare_dimension(hid_t file, hid_t group, const std::string& name, hsize_t size);

/** Labels axis `axis` of `dataset` with the dimension `scale` (replacing none already there). */
void attach_dimension_scale(hid_t dataset, hid_t scale, unsigned axis);

/** Detaches `scale` from axis `axis` of `dataset` where it is attached; does nothing elsewhere. */
void detach_dimension_scale(hid_t dataset, hid_t scale, unsigned axis);

/** Detaches every dimension scale from every axis of `dataset` (before it is deleted). */
void detach_dimension_scales(hid_t dataset);

}  // namespace shardrun::io::hdf5
