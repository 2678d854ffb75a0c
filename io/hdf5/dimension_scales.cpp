#include "io/hdf5/dimension_scales.hpp"

#include <hdf5_hl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace shardrun::io::hdf5 {
namespace {

constexpr const char* dimid_attr = "_Netcdf4Dimid";

/** Collects the largest _Netcdf4Dimid of the file's datasets; a C callback, so it must not throw. */
herr_t max_dimid(hid_t root, const char* name, const H5O_info_t* info, void* out)
{
    if (info->type != H5O_TYPE_DATASET) return 0;
    if (H5Aexists_by_name(root, name, dimid_attr, H5P_DEFAULT) <= 0) return 0;
    const hid_t attr = H5Aopen_by_name(root, name, dimid_attr, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0) return 0;
    std::int32_t id = -1;
    if (H5Aread(attr, H5T_NATIVE_INT32, &id) >= 0) {
        auto* best = static_cast<std::int32_t*>(out);
        *best = std::max(*best, id);
    }
    H5Aclose(attr);
    return 0;
}

/**
 * netCDF numbers dimensions per file, in creation order. Scanning the file (a master has
 * tens of datasets) keeps no counter that a merge or a resumed finish could get wrong.
 */
void set_next_dimid(hid_t file, hid_t scale)
{
    if (SHARDRUN_H5_CHECK(H5Aexists(scale, dimid_attr)) > 0) return;
    std::int32_t largest = -1;
    SHARDRUN_H5_CHECK(H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, max_dimid, &largest, H5O_INFO_BASIC));
    const std::int32_t next = largest + 1;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate(H5S_SCALAR));
    auto attr = SHARDRUN_H5_OPEN(Attribute,
                                 H5Acreate2(scale, dimid_attr, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    SHARDRUN_H5_CHECK(H5Awrite(attr.get(), H5T_NATIVE_INT32, &next));
}

std::string link_name(hid_t object)
{
    const auto size = SHARDRUN_H5_CHECK(H5Iget_name(object, nullptr, 0));
    std::string path(static_cast<std::size_t>(size) + 1, '\0');
    SHARDRUN_H5_CHECK(H5Iget_name(object, path.data(), path.size()));
    path.resize(static_cast<std::size_t>(size));
    return path.substr(path.rfind('/') + 1);
}

}  // namespace

void make_dimension_scale(hid_t file, hid_t scale)
{
    if (SHARDRUN_H5_CHECK(H5DSis_scale(scale)) <= 0) {
        // A coordinate variable's scale NAME is its own name (what netCDF-C and h5netcdf write).
        SHARDRUN_H5_CHECK(H5DSset_scale(scale, link_name(scale).c_str()));
    }
    set_next_dimid(file, scale);
}

Dataset create_bare_dimension(hid_t file, hid_t group, const std::string& name, hsize_t size)
{
    if (SHARDRUN_H5_CHECK(H5Lexists(group, name.c_str(), H5P_DEFAULT)) > 0) {
        auto existing = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name.c_str(), H5P_DEFAULT));
        if (SHARDRUN_H5_CHECK(H5DSis_scale(existing.get())) > 0) return existing;
        SHARDRUN_THROW(Hdf5Error, "cannot create the dimension " + name + ": a dataset of that name exists");
    }
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &size, nullptr));
    // Contiguous with late allocation: the dimension holds no data and costs no storage.
    auto scale = SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(group, name.c_str(), H5T_IEEE_F32BE, space.get(), H5P_DEFAULT,
                                                      H5P_DEFAULT, H5P_DEFAULT));
    char label[96];
    std::snprintf(label, sizeof label, "This is a netCDF dimension but not a netCDF variable.%10llu",
                  static_cast<unsigned long long>(size));
    SHARDRUN_H5_CHECK(H5DSset_scale(scale.get(), label));
    set_next_dimid(file, scale.get());
    return scale;
}

void attach_dimension_scale(hid_t dataset, hid_t scale, unsigned axis)
{
    if (SHARDRUN_H5_CHECK(H5DSis_attached(dataset, scale, axis)) > 0) return;
    SHARDRUN_H5_CHECK(H5DSattach_scale(dataset, scale, axis));
}

void detach_dimension_scale(hid_t dataset, hid_t scale, unsigned axis)
{
    // H5DSis_attached fails on an axis that never had a scale.
    if (H5DSget_num_scales(dataset, axis) <= 0) return;
    if (SHARDRUN_H5_CHECK(H5DSis_attached(dataset, scale, axis)) > 0) {
        SHARDRUN_H5_CHECK(H5DSdetach_scale(dataset, scale, axis));
    }
}

void detach_dimension_scales(hid_t dataset)
{
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset));
    const int rank = SHARDRUN_H5_CHECK(H5Sget_simple_extent_ndims(space.get()));
    for (int axis = 0; axis < rank; ++axis) {
        // H5DSiterate_scales fails on an axis that never had a scale.
        if (H5DSget_num_scales(dataset, static_cast<unsigned>(axis)) <= 0) continue;
        std::vector<hid_t> scales;
        const auto collect = [](hid_t, unsigned, hid_t scale, void* out) -> herr_t {
            // HDF5 closes `scale` after the callback: keep an id of our own. Detaching
            // happens after the iteration, which must not see its list change.
            static_cast<std::vector<hid_t>*>(out)->push_back(H5Oopen(scale, ".", H5P_DEFAULT));
            return 0;
        };
        int index = 0;
        SHARDRUN_H5_CHECK(H5DSiterate_scales(dataset, static_cast<unsigned>(axis), &index, collect, &scales));
        for (const hid_t scale : scales) {
            Dataset owned(scale);
            if (owned) SHARDRUN_H5_CHECK(H5DSdetach_scale(dataset, owned.get(), static_cast<unsigned>(axis)));
        }
    }
}

}  // namespace shardrun::io::hdf5
