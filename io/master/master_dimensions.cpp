// netCDF-4 dimensions of a master file, so that xarray (h5netcdf) opens every group with
// no options: a `task` coordinate at the root and in every group, a bare dimension per
// further axis.
#include <hdf5.h>
#include <hdf5_hl.h>

#include <cstdint>
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "io/gather/task_stream.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/types.hpp"
#include "io/master/master_file.hpp"

namespace shardrun::io::master {
namespace {

/** Names of the datasets directly under `group` that are not dimension scales. */
std::vector<std::string> variables_of(hid_t group)
{
    H5G_info_t info;
    SHARDRUN_H5_CHECK(H5Gget_info(group, &info));
    std::vector<std::string> names;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        const auto size = SHARDRUN_H5_CHECK(
            H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT));
        std::string name(static_cast<std::size_t>(size) + 1, '\0');
        SHARDRUN_H5_CHECK(
            H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT));
        name.resize(static_cast<std::size_t>(size));
        H5O_info_t object;
        SHARDRUN_H5_CHECK(H5Oget_info_by_name(group, name.c_str(), &object, H5P_DEFAULT));
        if (object.type != H5O_TYPE_DATASET) continue;
        if (SHARDRUN_H5_CHECK(H5Aexists_by_name(group, name.c_str(), "CLASS", H5P_DEFAULT)) > 0) continue;
        names.push_back(std::move(name));
    }
    return names;
}

/**
 * `<parent>/task`: the task ids 0..T-1 as a coordinate variable. One sits at the root and one
 * in each group: a dimension scale in `/` is visible to a group's datasets (netCDF scoping),
 * but `xr.open_dataset(path, group=...)` reads only the group's own variables, so the ids of a
 * single-group open come from the group's own coordinate.
 */
hdf5::Dataset task_coordinate(hid_t file, hid_t parent, std::uint64_t task_count)
{
    if (hdf5::has_link(parent, "task")) {
        auto task = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, "task", H5P_DEFAULT));
        // The job parser refuses params and fields named task; anything else is not ours to relabel.
        if (SHARDRUN_H5_CHECK(H5DSis_scale(task.get())) <= 0) {
            SHARDRUN_THROW(Hdf5Error, "cannot write the task coordinate: a dataset named task is there already");
        }
        return task;
    }
    // A block at a time: rank 0 holds no per-task array for the master (io/README.md).
    auto task = hdf5::create_column(parent, "task", H5T_STD_I64LE, task_count);
    std::vector<std::int64_t> ids;
    for (std::uint64_t first = 0; first < task_count; first += stream_block_rows()) {
        ids.resize(static_cast<std::size_t>(std::min<std::uint64_t>(stream_block_rows(), task_count - first)));
        std::iota(ids.begin(), ids.end(), static_cast<std::int64_t>(first));
        hdf5::write_column_block(task.get(), H5T_NATIVE_INT64, first, ids.size(), ids.data());
    }
    hdf5::make_dimension_scale(file, task.get());
    return task;
}

/**
 * CF's _FillValue (the HDF5 fill value of the dataset, same type): xarray then shows rows
 * without a result as NaN, for integer fields too.
 */
void write_fill_value_attr(hid_t dataset)
{
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Dget_create_plist(dataset));
    H5D_fill_value_t defined;
    SHARDRUN_H5_CHECK(H5Pfill_value_defined(dcpl.get(), &defined));
    if (defined != H5D_FILL_VALUE_USER_DEFINED) return;
    if (SHARDRUN_H5_CHECK(H5Aexists(dataset, "_FillValue")) > 0) return;
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset));
    if (H5Tget_class(type.get()) != H5T_FLOAT && H5Tget_class(type.get()) != H5T_INTEGER) return;
    // xarray decodes dtype="bool" to bool only without a _FillValue; a missing result reads false.
    if (hdf5::is_bool_storage(type.get())) {
        hdf5::mark_bool_field(dataset);
        return;
    }
    std::vector<unsigned char> value(H5Tget_size(type.get()));
    SHARDRUN_H5_CHECK(H5Pget_fill_value(dcpl.get(), type.get(), value.data()));
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate(H5S_SCALAR));
    auto attr = SHARDRUN_H5_OPEN(Attribute,
                                 H5Acreate2(dataset, "_FillValue", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    SHARDRUN_H5_CHECK(H5Awrite(attr.get(), type.get(), value.data()));
}

/**
 * Labels axis 0 of every variable of `group_name` with /task and axis k >= 1 with the bare
 * dimension `<variable>_dim<k-1>` of the same group. Variables whose first axis is not the
 * task axis are left alone.
 */
void label_group(hid_t file, const char* group_name, hid_t root_task, std::uint64_t task_count, bool results)
{
    if (!hdf5::has_link(file, group_name)) return;
    auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, group_name, H5P_DEFAULT));
    const auto task = task_coordinate(file, group.get(), task_count);
    const auto variables = variables_of(group.get());
    // <field>_length beside its field (no declared field may be named so): no _FillValue, which
    // would make xarray read the integer column as float64 to hold NaN; it stays int64 there.
    const auto is_length_column = [&variables](const std::string& name) {
        const std::string suffix = "_length";
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
        return std::find(variables.begin(), variables.end(), name.substr(0, name.size() - suffix.size())) != variables.end();
    };
    for (const auto& name : variables) {
        auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group.get(), name.c_str(), H5P_DEFAULT));
        const auto dims = hdf5::dataset_extents(dataset.get());
        if (dims.empty() || dims[0] != task_count) continue;
        // A file labelled before groups had their own coordinate carries /task on axis 0:
        // two scales on one axis are "malformed" to h5netcdf.
        hdf5::detach_dimension_scale(dataset.get(), root_task, 0);
        hdf5::attach_dimension_scale(dataset.get(), task.get(), 0);
        for (std::size_t axis = 1; axis < dims.size(); ++axis) {
            const auto dim_name = name + "_dim" + std::to_string(axis - 1);
            auto scale = hdf5::create_bare_dimension(file, group.get(), dim_name, dims[axis]);
            hdf5::attach_dimension_scale(dataset.get(), scale.get(), static_cast<unsigned>(axis));
        }
        if (results && !is_length_column(name)) write_fill_value_attr(dataset.get());
    }
}

}  // namespace

void write_dimensions(hid_t file, std::uint64_t task_count)
{
    auto root = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "/", H5P_DEFAULT));
    const auto task = task_coordinate(file, root.get(), task_count);
    label_group(file, "results", task.get(), task_count, true);
    label_group(file, "params", task.get(), task_count, false);
    label_group(file, "ranges", task.get(), task_count, false);
    label_group(file, "tasks", task.get(), task_count, false);
    if (hdf5::has_link(file, "params")) {
        // The sweep values are coordinates (CF's group `coordinates`): xarray shows them as
        // such, and results.assign_coords(params.coords) labels the results in one call.
        auto params = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "params", H5P_DEFAULT));
        std::string names;
        for (const auto& name : variables_of(params.get())) names += (names.empty() ? "" : " ") + name;
        if (!names.empty()) hdf5::write_attr(params.get(), "coordinates", names);
    }
}

}  // namespace shardrun::io::master
