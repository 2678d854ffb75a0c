#include "io/input/dataset_reader.hpp"

#include <hdf5.h>

#include <mutex>
#include <sstream>
#include <utility>

#include "io/input/ranged_file_driver.hpp"
#include "io/library_info.hpp"

namespace shardrun::io {
namespace {

/** Closes one HDF5 id on scope exit. */
template <herr_t (*Close)(hid_t)>
class Id {
public:
    explicit Id(hid_t id) : id_(id) {}
    ~Id()
    {
        if (id_ >= 0) Close(id_);
    }
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    hid_t get() const noexcept { return id_; }

private:
    hid_t id_;
};

std::string dtype_of(hid_t type)
{
    const auto type_class = H5Tget_class(type);
    const auto size = H5Tget_size(type);
    if (type_class == H5T_FLOAT) return size == 4 ? "float32" : size == 8 ? "float64" : "float" + std::to_string(8 * size);
    if (type_class == H5T_INTEGER) {
        const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
        return (is_signed ? "int" : "uint") + std::to_string(8 * size);
    }
    return "other";
}

std::string shape_text(const std::vector<std::uint64_t>& dims)
{
    std::ostringstream text;
    text << "[";
    for (std::size_t i = 0; i < dims.size(); ++i) text << (i ? ", " : "") << dims[i];
    text << "]";
    return text.str();
}

DatasetInfo info_of(hid_t dataset)
{
    const Id<H5Sclose> space(H5Dget_space(dataset));
    const Id<H5Tclose> type(H5Dget_type(dataset));
    DatasetInfo info;
    const int rank = H5Sget_simple_extent_ndims(space.get());
    info.dims.resize(rank > 0 ? rank : 0);
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), reinterpret_cast<hsize_t*>(info.dims.data()), nullptr);
    info.dtype = dtype_of(type.get());
    return info;
}

hid_t open_dataset(hid_t file, const DatasetLocation& location)
{
    const hid_t dataset = H5Dopen2(file, location.dataset.c_str(), H5P_DEFAULT);
    if (dataset < 0) SHARDRUN_THROW(InputError, location.text() + ": no dataset '" + location.dataset + "' in " + location.file);
    return dataset;
}

hid_t open_file(const DatasetLocation& location, hid_t access = H5P_DEFAULT)
{
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors reach the caller as InputError
    const hid_t file = H5Fopen(location.file.c_str(), H5F_ACC_RDONLY, access);
    if (file < 0) SHARDRUN_THROW(InputError, location.text() + ": cannot open '" + location.file + "' as an HDF5 file");
    return file;
}

}  // namespace

DatasetLocation parse_dataset_location(const std::string& spec)
{
    const auto colon = spec.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size()) {
        SHARDRUN_THROW(InputError, "'" + spec + "' is not FILE.h5:/dataset");
    }
    return {spec.substr(0, colon), spec.substr(colon + 1)};
}

DatasetInfo describe_dataset(const DatasetLocation& location)
{
    const std::lock_guard lock(hdf5_mutex());
    const Id<H5Fclose> file(open_file(location));
    const Id<H5Dclose> dataset(open_dataset(file.get(), location));
    return info_of(dataset.get());
}

DatasetInfo describe_dataset(const RangedFile& source, const std::string& dataset)
{
    const std::lock_guard lock(hdf5_mutex());
    const RangedFileAccess access(source);
    const DatasetLocation location{source.name, dataset};
    try {
        const Id<H5Fclose> file(open_file(location, access.fapl()));
        const Id<H5Dclose> opened(open_dataset(file.get(), location));
        return info_of(opened.get());
    } catch (const InputError&) {
        access.rethrow_read_error();  // a failed read's own cause before HDF5's "cannot open"
        throw;
    }
}

std::vector<float> read_float32_rows(const DatasetLocation& location, std::uint64_t start, std::uint64_t end,
                                     int rank, std::string_view layout, DatasetInfo* info_out)
{
    const std::lock_guard lock(hdf5_mutex());
    const Id<H5Fclose> file(open_file(location));
    const Id<H5Dclose> dataset(open_dataset(file.get(), location));
    const auto info = info_of(dataset.get());
    if (info_out != nullptr) *info_out = info;
    if (static_cast<int>(info.dims.size()) != rank || info.dtype != "float32") {
        SHARDRUN_THROW(InputError, location.text() + ": has shape " + shape_text(info.dims) + " and dtype " + info.dtype +
                                   "; this task needs a float32 dataset of rank " + std::to_string(rank) + " " +
                                   std::string(layout));
    }
    if (start > end || end > info.dims[0]) {
        SHARDRUN_THROW(InputError, location.text() + ": rows [" + std::to_string(start) + ", " + std::to_string(end) +
                                   ") are outside its " + std::to_string(info.dims[0]) + " rows");
    }
    std::vector<hsize_t> offset(rank, 0), count(info.dims.begin(), info.dims.end());
    offset[0] = start;
    count[0] = end - start;
    std::size_t elements = 1;
    for (const auto extent : count) elements *= extent;
    std::vector<float> rows(elements);
    if (elements == 0) return rows;
    const Id<H5Sclose> file_space(H5Dget_space(dataset.get()));
    const Id<H5Sclose> memory_space(H5Screate_simple(rank, count.data(), nullptr));
    const bool ok = H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset.data(), nullptr, count.data(), nullptr) >= 0 &&
                    H5Dread(dataset.get(), H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(), H5P_DEFAULT, rows.data()) >= 0;
    if (!ok) SHARDRUN_THROW(InputError, location.text() + ": reading rows [" + std::to_string(start) + ", " + std::to_string(end) + ") failed");
    return rows;
}

}  // namespace shardrun::io
