// /gpus of a master: each GPU's admission check before its rank took work (issue 38), one row
// per GPU on the dimension `gpu`, so that h5py reads the columns and xarray opens the group.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/handle.hpp"
#include "io/master/master_file.hpp"

namespace shardrun::io::master {
namespace {

/** One column of a row's member, written with `type`. */
template <typename T, typename Get>
hdf5::Dataset column(hid_t group, const char* name, hid_t file_type, hid_t mem_type, const std::vector<GpuCheckRow>& rows,
                     Get get)
{
    std::vector<T> values;
    for (const auto& row : rows) values.push_back(static_cast<T>(get(row)));
    return hdf5::write_column(group, name, file_type, mem_type, values.data(), values.size());
}

template <typename Get>
hdf5::Dataset strings(hid_t group, const char* name, const std::vector<GpuCheckRow>& rows, Get get)
{
    std::vector<std::string> values;
    for (const auto& row : rows) values.push_back(get(row));
    return hdf5::write_strings(group, name, values);
}

}  // namespace

void write_gpus(hid_t file, const std::vector<GpuCheckRow>& rows)
{
    if (hdf5::has_link(file, "gpus")) SHARDRUN_H5_CHECK(H5Ldelete(file, "gpus", H5P_DEFAULT));  // this run's rows
    auto group = hdf5::ensure_group(file, "gpus");
    const auto g = group.get();
    std::vector<hdf5::Dataset> columns;
    const auto i32 = [&](const char* name, auto get) {
        columns.push_back(column<std::int32_t>(g, name, H5T_STD_I32LE, H5T_NATIVE_INT32, rows, get));
    };
    const auto f64 = [&](const char* name, const char* units, auto get) {
        columns.push_back(column<double>(g, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, rows, get));
        hdf5::write_attr(columns.back().get(), "units", std::string(units));
    };
    const auto text = [&](const char* name, auto get) { columns.push_back(strings(g, name, rows, get)); };
    i32("array_index", [](const auto& r) { return r.array_index; });
    i32("rank", [](const auto& r) { return r.rank; });
    text("host", [](const auto& r) { return r.host; });
    text("device", [](const auto& r) { return r.device; });
    text("visible_id", [](const auto& r) { return r.visible_id; });
    text("uuid", [](const auto& r) { return r.uuid; });
    text("model", [](const auto& r) { return r.model; });
    text("precision", [](const auto& r) { return r.precision; });
    f64("gemm_tflops", "TFLOP/s", [](const auto& r) { return r.gemm_tflops; });
    f64("copy_gbps", "GB/s", [](const auto& r) { return r.copy_gbps; });
    f64("floor_tflops", "TFLOP/s", [](const auto& r) { return r.floor_tflops; });
    f64("check_seconds", "s", [](const auto& r) { return r.check_seconds; });
    i32("sm_clock_mhz", [](const auto& r) { return r.sm_clock_mhz; });
    i32("sm_clock_max_mhz", [](const auto& r) { return r.sm_clock_max_mhz; });
    i32("mem_clock_mhz", [](const auto& r) { return r.mem_clock_mhz; });
    text("throttle", [](const auto& r) { return r.throttle; });
    text("errors", [](const auto& r) { return r.errors; });
    // int8 0/1, as /tasks keeps its flags: h5py, xarray and pandas read it without a boolean enum.
    columns.push_back(column<std::int8_t>(g, "admitted", H5T_STD_I8LE, H5T_NATIVE_INT8, rows,
                                          [](const auto& r) { return r.admitted ? 1 : 0; }));
    text("reason", [](const auto& r) { return r.reason; });
    auto gpu = hdf5::create_bare_dimension(file, g, "gpu", rows.size());
    for (auto& dataset : columns) hdf5::attach_dimension_scale(dataset.get(), gpu.get(), 0);
}

}  // namespace shardrun::io::master
