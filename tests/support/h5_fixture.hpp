#pragma once

// Writes small HDF5 datasets for the input tests (plain, non-MPI file access).
#include <hdf5.h>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace shardrun::test {

/** Creates (or truncates) `file` with one dataset `name` of `shape` holding `values` as `type`. */
template <typename T>
void write_dataset(const std::string& file, const std::string& name, const std::vector<hsize_t>& shape,
                   const std::vector<T>& values, hid_t memory_type, hid_t file_type)
{
    const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
    const hid_t d = H5Dcreate2(f, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(f);
}

/** A path under the test's temporary directory. */
inline std::string temp_path(const std::string& name)
{
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/shardrun_kernels_" + std::to_string(getpid()) + "_" + name;
}

}  // namespace shardrun::test
