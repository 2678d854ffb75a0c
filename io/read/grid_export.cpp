// export_grid(): a cartesian sweep's results as N-D netCDF-4 variables over the sweep axes.
#include "io/read/grid_export.hpp"

#include <hdf5.h>

#include <cstdio>
#include <numeric>
#include <set>

#include "io/errors.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/types.hpp"
#include "io/hdf5/handle.hpp"
#include "io/read/results_table.hpp"

namespace shardrun::io {
namespace {

/** Every `stride`-th value of `values` from 0, `count` of them: one axis's coordinates. */
template <typename T>
std::vector<T> strided(const std::vector<T>& values, std::uint64_t stride, std::uint64_t count)
{
    std::vector<T> out;
    for (std::uint64_t i = 0; i < count; ++i) out.push_back(values.at(i * stride));
    return out;
}

/** /<axis>: the axis's values read from the master's /params/<axis>, a netCDF coordinate variable. */
hdf5::Dataset write_axis(hid_t source, hid_t target, const GridAxis& axis, std::uint64_t stride)
{
    const auto path = "params/" + axis.name;
    if (!hdf5::has_link(source, path)) SHARDRUN_THROW(OutputError, "the results file has no /" + path + " for the sweep axis " + axis.name);
    auto params = SHARDRUN_H5_OPEN(Group, H5Gopen2(source, "params", H5P_DEFAULT));
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(params.get(), axis.name.c_str(), H5P_DEFAULT));
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
    const auto type_class = H5Tget_class(type.get());
    if (type_class == H5T_STRING) {
        hdf5::write_strings(target, axis.name, strided(hdf5::read_strings(params.get(), axis.name), stride, axis.size));
    } else if (type_class == H5T_FLOAT) {
        const auto values = strided(hdf5::read_column<double>(params.get(), axis.name, H5T_NATIVE_DOUBLE), stride, axis.size);
        hdf5::write_column(target, axis.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values.data(), values.size());
    } else {
        const auto values =
            strided(hdf5::read_column<std::int64_t>(params.get(), axis.name, H5T_NATIVE_INT64), stride, axis.size);
        hdf5::write_column(target, axis.name, H5T_STD_I64LE, H5T_NATIVE_INT64, values.data(), values.size());
    }
    auto scale = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(target, axis.name.c_str(), H5P_DEFAULT));
    hdf5::make_dimension_scale(target, scale.get());
    return scale;
}

/** CF's _FillValue from the dataset's HDF5 fill value, so xarray masks tasks without a result. */
void write_fill_value_attr(hid_t dataset, hid_t dcpl, hid_t type)
{
    H5D_fill_value_t defined;
    SHARDRUN_H5_CHECK(H5Pfill_value_defined(dcpl, &defined));
    if (defined != H5D_FILL_VALUE_USER_DEFINED) return;
    std::vector<unsigned char> value(H5Tget_size(type));
    SHARDRUN_H5_CHECK(H5Pget_fill_value(dcpl, type, value.data()));
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate(H5S_SCALAR));
    auto attr = SHARDRUN_H5_OPEN(Attribute, H5Acreate2(dataset, "_FillValue", type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    SHARDRUN_H5_CHECK(H5Awrite(attr.get(), type, value.data()));
}

/** Copies [T, shape...] into [axes..., shape...], one slice of the first axis at a time (same element order). */
void copy_slices(hid_t from, hid_t to, hid_t memory_type, const std::vector<hsize_t>& source_dims,
                 const std::vector<hsize_t>& target_dims)
{
    const hsize_t slices = target_dims[0];
    const hsize_t rows = source_dims[0] / slices;
    const hsize_t per_row = std::accumulate(source_dims.begin() + 1, source_dims.end(), hsize_t{1}, std::multiplies<>());
    std::vector<unsigned char> buffer(rows * per_row * H5Tget_size(memory_type));
    const hsize_t elements = rows * per_row;
    auto memory = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &elements, nullptr));
    auto source_space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(from));
    auto target_space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(to));
    std::vector<hsize_t> source_start(source_dims.size(), 0), source_count = source_dims;
    std::vector<hsize_t> target_start(target_dims.size(), 0), target_count = target_dims;
    source_count[0] = rows;
    target_count[0] = 1;
    for (hsize_t slice = 0; slice < slices && elements > 0; ++slice) {
        source_start[0] = slice * rows;
        target_start[0] = slice;
        SHARDRUN_H5_CHECK(H5Sselect_hyperslab(source_space.get(), H5S_SELECT_SET, source_start.data(), nullptr,
                                              source_count.data(), nullptr));
        SHARDRUN_H5_CHECK(H5Sselect_hyperslab(target_space.get(), H5S_SELECT_SET, target_start.data(), nullptr,
                                              target_count.data(), nullptr));
        SHARDRUN_H5_CHECK(H5Dread(from, memory_type, memory.get(), source_space.get(), H5P_DEFAULT, buffer.data()));
        SHARDRUN_H5_CHECK(H5Dwrite(to, memory_type, memory.get(), target_space.get(), H5P_DEFAULT, buffer.data()));
    }
}

/**
 * /<name> [axes..., shape...] from `source_path` [T, shape...]; its own axes are the bare
 * dimensions <name>_dim<k>, as in the master.
 */
void write_variable(hid_t target, hid_t source_group, const std::string& name, const std::string& variable,
                    const std::vector<hdf5::Dataset>& axis_scales)
{
    auto from = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(source_group, name.c_str(), H5P_DEFAULT));
    const auto source_dims = hdf5::dataset_extents(from.get());
    std::vector<hsize_t> dims;
    for (const auto& scale : axis_scales) dims.push_back(hdf5::dataset_extents(scale.get())[0]);
    const auto axes = dims.size();
    dims.insert(dims.end(), source_dims.begin() + 1, source_dims.end());
    auto file_type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(from.get()));
    auto memory_type = SHARDRUN_H5_OPEN(Datatype, H5Tget_native_type(file_type.get(), H5T_DIR_ASCEND));
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Dget_create_plist(from.get()));
    if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED) {
        // A field of large rows is a chunk per task row (io/hdf5/row_chunks.hpp): one per grid point here.
        std::vector<hsize_t> chunk(axes, 1);
        chunk.insert(chunk.end(), source_dims.begin() + 1, source_dims.end());
        SHARDRUN_H5_CHECK(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()));
    }
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    auto to = SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(target, variable.c_str(), file_type.get(), space.get(), H5P_DEFAULT,
                                                   dcpl.get(), H5P_DEFAULT));
    copy_slices(from.get(), to.get(), memory_type.get(), source_dims, dims);
    if (hdf5::is_bool_storage(file_type.get())) {
        hdf5::mark_bool_field(to.get());  // no _FillValue: xarray would not decode it as bool
    } else if (H5Tget_class(file_type.get()) != H5T_ENUM) {
        write_fill_value_attr(to.get(), dcpl.get(), file_type.get());
    }
    if (const auto units = hdf5::read_string_attr(from.get(), "units")) hdf5::write_attr(to.get(), "units", *units);
    for (std::size_t k = 0; k < axes; ++k) hdf5::attach_dimension_scale(to.get(), axis_scales[k].get(), static_cast<unsigned>(k));
    for (std::size_t k = axes; k < dims.size(); ++k) {
        auto bare = hdf5::create_bare_dimension(target, target, variable + "_dim" + std::to_string(k - axes), dims[k]);
        hdf5::attach_dimension_scale(to.get(), bare.get(), static_cast<unsigned>(k));
    }
}

/** /status [axes...]: int8 with CF flags (pending 0, ok 1, failed 2, skipped 3). */
void write_status(hid_t target, hid_t source, const std::vector<hdf5::Dataset>& axis_scales)
{
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(source, "tasks", H5P_DEFAULT));
    const auto status = hdf5::read_column<std::int8_t>(tasks.get(), "status", H5T_NATIVE_INT8);
    std::vector<hsize_t> dims;
    for (const auto& scale : axis_scales) dims.push_back(hdf5::dataset_extents(scale.get())[0]);
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(target, "status", H5T_STD_I8LE, space.get(), H5P_DEFAULT,
                                                        H5P_DEFAULT, H5P_DEFAULT));
    SHARDRUN_H5_CHECK(H5Dwrite(dataset.get(), H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, status.data()));
    const std::int8_t flags[] = {0, 1, 2, 3};
    const hsize_t four = 4;
    auto flag_space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &four, nullptr));
    auto attr = SHARDRUN_H5_OPEN(Attribute, H5Acreate2(dataset.get(), "flag_values", H5T_STD_I8LE, flag_space.get(),
                                                       H5P_DEFAULT, H5P_DEFAULT));
    SHARDRUN_H5_CHECK(H5Awrite(attr.get(), H5T_NATIVE_INT8, flags));
    hdf5::write_attr(dataset.get(), "flag_meanings", std::string("pending ok failed skipped"));
    for (std::size_t k = 0; k < axis_scales.size(); ++k) {
        hdf5::attach_dimension_scale(dataset.get(), axis_scales[k].get(), static_cast<unsigned>(k));
    }
}

/** Checks the axes against the master: they multiply to its task count and name no field or `status`. */
void check_axes(hid_t source, const std::vector<GridAxis>& axes, const std::vector<std::string>& fields)
{
    const auto task_count = static_cast<std::uint64_t>(hdf5::read_int_attr(source, "task_count").value_or(0));
    std::uint64_t points = 1;
    std::set<std::string> names{"status"};
    for (const auto& axis : axes) {
        points *= axis.size;
        names.insert(axis.name);
    }
    if (points != task_count) {
        SHARDRUN_THROW(OutputError, "the sweep has " + std::to_string(points) + " points but the results file has " +
                                    std::to_string(task_count) + " tasks; it was not written by this sweep");
    }
    for (const auto& field : fields) {
        if (!names.insert(field).second) {
            SHARDRUN_THROW(OutputError, "the result field '" + field + "' has the name of a sweep axis or of status; the grid "
                                        "file cannot hold both");
        }
    }
}

void write_grid(hid_t source, hid_t target, const std::vector<GridAxis>& axes)
{
    const auto fields = hdf5::read_string_list_attr(source, "fields");
    check_axes(source, axes, fields);
    std::vector<hdf5::Dataset> scales;
    std::uint64_t stride = 1;
    for (const auto& axis : axes) stride *= axis.size;
    for (const auto& axis : axes) {
        stride /= axis.size;
        scales.push_back(write_axis(source, target, axis, stride));
    }
    auto results = SHARDRUN_H5_OPEN(Group, H5Gopen2(source, "results", H5P_DEFAULT));
    for (const auto& field : fields) write_variable(target, results.get(), field, field, scales);
    write_status(target, source, scales);
    for (const char* name : {"job_name", "shardrun_version", "created", "finished"}) {
        if (const auto value = hdf5::read_string_attr(source, name)) hdf5::write_attr(target, name, *value);
    }
}

}  // namespace

std::string stored_job_json(const std::string& master_path)
{
    require_master(master_path);
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(master_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        // An extended sweep appended its added points after the old ids: not the grid's order.
        if (hdf5::read_string_attr(file.get(), "earlier_params_json")) {
            SHARDRUN_THROW(OutputError, "export: --grid needs a cartesian sweep; " + master_path +
                                        " is a sweep extended by --resume (added points come after the old ids, not in "
                                        "grid order); use shardrun table or the /params columns");
        }
        if (auto json = hdf5::read_string_attr(file.get(), "params_json")) return *json;
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(OutputError, master_path + " is not a readable shardrun results file (" + error.cause() + ")");
    }
    SHARDRUN_THROW(OutputError, master_path + " is not a shardrun results file (no params_json attribute)");
}

void export_grid(const std::string& master_path, const std::vector<GridAxis>& axes, const std::string& target)
{
    require_master(master_path);
    hdf5::silence_hdf5_errors();
    const auto temp = target + ".tmp";
    try {
        auto source = SHARDRUN_H5_OPEN(File, H5Fopen(master_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        // netCDF-C opens only files whose links and attributes keep their creation order.
        auto fcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_FILE_CREATE));
        SHARDRUN_H5_CHECK(H5Pset_link_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
        SHARDRUN_H5_CHECK(H5Pset_attr_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
        auto file = SHARDRUN_H5_OPEN(File, H5Fcreate(temp.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT));
        write_grid(source.get(), file.get(), axes);
        file.close();
    } catch (const Hdf5Error& error) {
        std::remove(temp.c_str());
        SHARDRUN_THROW(OutputError, "cannot export " + master_path + " to " + target + ": " + error.cause());
    } catch (...) {
        std::remove(temp.c_str());
        throw;
    }
    if (std::rename(temp.c_str(), target.c_str()) != 0) {
        std::remove(temp.c_str());
        SHARDRUN_THROW(OutputError, "cannot write " + target + "; check the folder exists and is writable");
    }
}

}  // namespace shardrun::io
