#include "io/hdf5/dimension_scales.hpp"

#include <gtest/gtest.h>
#include <hdf5_hl.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "output_test_support.hpp"

namespace shardrun::io::hdf5 {
namespace {

std::string scale_name(hid_t scale)
{
    const auto size = H5DSget_scale_name(scale, nullptr, 0);
    std::string name(static_cast<std::size_t>(size) + 1, '\0');
    H5DSget_scale_name(scale, name.data(), name.size());
    name.resize(static_cast<std::size_t>(size));
    return name;
}

std::int32_t dimid(hid_t scale)
{
    auto attr = SHARDRUN_H5_OPEN(Attribute, H5Aopen(scale, "_Netcdf4Dimid", H5P_DEFAULT));
    std::int32_t id = -1;
    SHARDRUN_H5_CHECK(H5Aread(attr.get(), H5T_NATIVE_INT32, &id));
    return id;
}

class DimensionScales : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir_ = io::testing::scratch_dir();
        const auto path = dir_ + "/dims.h5";
        file_ = SHARDRUN_H5_OPEN(File, H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    }
    void TearDown() override
    {
        file_.reset();
        std::filesystem::remove_all(dir_);
    }

    std::string dir_;
    File file_;
};

TEST_F(DimensionScales, ACoordinateVariableIsNamedAfterItsLinkAndNumbered)
{
    const std::vector<std::int64_t> ids{0, 1, 2};
    auto task = write_column(file_.get(), "task", H5T_STD_I64LE, H5T_NATIVE_INT64, ids.data(), ids.size());

    make_dimension_scale(file_.get(), task.get());
    make_dimension_scale(file_.get(), task.get());

    EXPECT_GT(H5DSis_scale(task.get()), 0);
    EXPECT_EQ(scale_name(task.get()), "task");
    EXPECT_EQ(dimid(task.get()), 0);
}

TEST_F(DimensionScales, ABareDimensionHasTheNetcdfNameNoStorageAndTheNextId)
{
    const std::vector<double> ids{0, 1};
    auto task = write_column(file_.get(), "task", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ids.data(), ids.size());
    make_dimension_scale(file_.get(), task.get());
    auto group = ensure_group(file_.get(), "results");

    auto bare = create_bare_dimension(file_.get(), group.get(), "spectrum_dim0", 128);
    auto again = create_bare_dimension(file_.get(), group.get(), "spectrum_dim0", 128);

    EXPECT_EQ(scale_name(bare.get()), "This is a netCDF dimension but not a netCDF variable.       128");
    EXPECT_EQ(H5Dget_storage_size(bare.get()), 0u);
    EXPECT_EQ(dimid(bare.get()), 1);
    EXPECT_EQ(dimid(again.get()), 1);
    EXPECT_EQ(column_length(group.get(), "spectrum_dim0"), 128u);
}

TEST_F(DimensionScales, AttachingLabelsEachAxisOnceAndDetachingClearsThem)
{
    const std::vector<std::int64_t> ids{0, 1};
    auto task = write_column(file_.get(), "task", H5T_STD_I64LE, H5T_NATIVE_INT64, ids.data(), ids.size());
    make_dimension_scale(file_.get(), task.get());
    auto bare = create_bare_dimension(file_.get(), file_.get(), "grid_dim0", 3);
    const hsize_t dims[2] = {2, 3};
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(2, dims, nullptr));
    auto grid = SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(file_.get(), "grid", H5T_NATIVE_FLOAT, space.get(), H5P_DEFAULT,
                                                     H5P_DEFAULT, H5P_DEFAULT));

    attach_dimension_scale(grid.get(), task.get(), 0);
    attach_dimension_scale(grid.get(), task.get(), 0);
    attach_dimension_scale(grid.get(), bare.get(), 1);

    EXPECT_EQ(H5DSget_num_scales(grid.get(), 0), 1);
    EXPECT_GT(H5DSis_attached(grid.get(), bare.get(), 1), 0);
    detach_dimension_scales(grid.get());
    EXPECT_EQ(H5DSget_num_scales(grid.get(), 0), 0);
    EXPECT_EQ(H5DSget_num_scales(grid.get(), 1), 0);
}

TEST_F(DimensionScales, ABareDimensionDoesNotReplaceAVariable)
{
    const std::vector<double> values{1, 2};
    write_column(file_.get(), "x_dim0", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values.data(), values.size());

    EXPECT_THROW(create_bare_dimension(file_.get(), file_.get(), "x_dim0", 2), Hdf5Error);
}

}  // namespace
}  // namespace shardrun::io::hdf5
