#include "vds_master.hpp"

#include <hdf5.h>

#include <filesystem>
#include <limits>
#include <stdexcept>
#include <vector>

#include "bench_common.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::bench {
namespace {

void check(herr_t status, const char* what)
{
    if (status < 0) throw std::runtime_error(std::string("HDF5 failed: ") + what);
}

void select_run(hid_t space, hsize_t first, hsize_t count)
{
    check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &first, nullptr, &count, nullptr), "select");
}

}  // namespace

std::size_t write_vds_master(const std::string& target, const TaskTable& table, const std::string& field)
{
    const hsize_t task_count = table.source_of.size();
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    const double fill = std::numeric_limits<double>::quiet_NaN();
    check(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill), "fill");
    const hid_t vspace = H5Screate_simple(1, &task_count, nullptr);
    const auto base = fs::absolute(target).parent_path();
    std::size_t mappings = 0;
    for (hsize_t id = 0; id < task_count;) {
        const int source = table.source_of[id];
        if (source < 0) {
            ++id;
            continue;
        }
        hsize_t count = 1;
        while (id + count < task_count && table.source_of[id + count] == source &&
               table.row_of[id + count] == table.row_of[id] + count) {
            ++count;
        }
        const auto file = table.sources[static_cast<std::size_t>(source)].file;
        const hsize_t rows = fs::file_size(file) > 0 ? count : 0;  // source extent: only what is mapped
        const hsize_t source_extent = table.row_of[id] + rows;
        const hid_t sspace = H5Screate_simple(1, &source_extent, nullptr);
        select_run(vspace, id, count);
        select_run(sspace, table.row_of[id], count);
        const auto relative = fs::relative(file, base).string();
        check(H5Pset_virtual(dcpl, vspace, relative.c_str(), ("results/" + field).c_str(), sspace), "virtual");
        H5Sclose(sspace);
        ++mappings;
        id += count;
    }
    const hid_t out = H5Fcreate(target.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t group = H5Gcreate2(out, "results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t dataset = H5Dcreate2(group, field.c_str(), H5T_NATIVE_DOUBLE, vspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    check(dataset, "create VDS");
    H5Dclose(dataset);
    H5Gclose(group);
    H5Fclose(out);
    H5Sclose(vspace);
    H5Pclose(dcpl);
    return mappings;
}

double read_field_seconds(const std::string& file, const std::string& field)
{
    const double start = seconds();
    const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t dataset = H5Dopen2(h5, ("results/" + field).c_str(), H5P_DEFAULT);
    const hid_t space = H5Dget_space(dataset);
    std::vector<double> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    check(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "read");
    H5Sclose(space);
    H5Dclose(dataset);
    H5Fclose(h5);
    return seconds() - start;
}

}  // namespace shardrun::io::bench
