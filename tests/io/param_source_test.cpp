// /params and /ranges written and read a block at a time (io/param_source.hpp): the values
// come back whole across block boundaries, and existing columns are left as they are.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "io/gather/task_stream.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"
#include "io/master/master_file.hpp"
#include "io/output/params_file.hpp"
#include "io/params/file_param_source.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::io {
namespace {

// Two whole blocks and a short one.
const std::uint64_t rows = 2 * stream_block_rows() + 5;

class ParamSourceTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir_ = shardrun::testing::make_temp_dir("shardrun_param_source_");
        std::vector<std::int64_t> n;
        std::vector<double> lr;
        std::vector<std::string> model;
        for (std::uint64_t i = 0; i < rows; ++i) {
            n.push_back(static_cast<std::int64_t>(i) * 3 - 7);
            lr.push_back(0.5 * static_cast<double>(i));
            model.push_back("m" + std::to_string(i % 1000));
            ranges_.start.push_back(static_cast<std::int64_t>(i) * 10);
            ranges_.end.push_back(static_cast<std::int64_t>(i) * 10 + 10);
        }
        params_ = {ParamColumn{"n", n}, ParamColumn{"lr", lr}, ParamColumn{"model", model}};
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::filesystem::path dir_;
    std::vector<ParamColumn> params_;
    TaskRanges ranges_;
};

TEST_F(ParamSourceTest, AFileWrittenInBlocksReadsBackWhole)
{
    const auto file = dir_ / "params.h5";
    write_params_file(file, ColumnsParamSource(params_, ranges_));
    const FileParamSource source(file, {"model", "n", "lr"});
    ASSERT_EQ(source.task_count(), rows);
    ASSERT_TRUE(source.has_ranges());
    ASSERT_EQ(source.columns().size(), 3u);
    EXPECT_EQ(source.columns()[0].type, ParamType::text);
    EXPECT_EQ(source.columns()[1].type, ParamType::int64);
    EXPECT_EQ(source.columns()[2].type, ParamType::float64);

    // Whole columns straight from HDF5, then the source's blocks at an odd offset and size.
    {
        hdf5::silence_hdf5_errors();
        auto h5 = SHARDRUN_H5_OPEN(File, H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(h5.get(), "params", H5P_DEFAULT));
        EXPECT_EQ(hdf5::read_column<std::int64_t>(group.get(), "n", H5T_NATIVE_INT64),
                  std::get<std::vector<std::int64_t>>(params_[0].values));
        EXPECT_EQ(hdf5::read_column<double>(group.get(), "lr", H5T_NATIVE_DOUBLE),
                  std::get<std::vector<double>>(params_[1].values));
        EXPECT_EQ(hdf5::read_strings(group.get(), "model"), std::get<std::vector<std::string>>(params_[2].values));
        auto group_ranges = SHARDRUN_H5_OPEN(Group, H5Gopen2(h5.get(), "ranges", H5P_DEFAULT));
        EXPECT_EQ(hdf5::read_column<std::int64_t>(group_ranges.get(), "end", H5T_NATIVE_INT64), ranges_.end);
    }
    std::vector<ParamColumn> block;
    TaskRanges block_ranges;
    const std::uint64_t first = stream_block_rows() - 3;
    source.read(first, 9, block, block_ranges);
    ASSERT_EQ(block.size(), 3u);
    for (std::size_t i = 0; i < 9; ++i) {
        EXPECT_EQ(std::get<std::vector<std::string>>(block[0].values)[i], "m" + std::to_string((first + i) % 1000));
        EXPECT_EQ(std::get<std::vector<std::int64_t>>(block[1].values)[i], static_cast<std::int64_t>(first + i) * 3 - 7);
        EXPECT_EQ(std::get<std::vector<double>>(block[2].values)[i], 0.5 * static_cast<double>(first + i));
        EXPECT_EQ(block_ranges.start[i], static_cast<std::int64_t>(first + i) * 10);
    }
}

TEST_F(ParamSourceTest, ColumnsTheFileHasAreKept)
{
    const auto file = dir_ / "master.h5";
    hdf5::silence_hdf5_errors();
    auto h5 = SHARDRUN_H5_OPEN(File, H5Fcreate(file.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
    const std::vector<std::int64_t> old_n(rows, 42);
    {
        auto group = hdf5::ensure_group(h5.get(), "params");
        hdf5::write_column(group.get(), "n", H5T_NATIVE_INT64, H5T_NATIVE_INT64, old_n.data(), old_n.size());
    }
    master::write_params(h5.get(), ColumnsParamSource(params_, ranges_));
    auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(h5.get(), "params", H5P_DEFAULT));
    EXPECT_EQ(hdf5::read_column<std::int64_t>(group.get(), "n", H5T_NATIVE_INT64), old_n);
    EXPECT_EQ(hdf5::read_column<double>(group.get(), "lr", H5T_NATIVE_DOUBLE),
              std::get<std::vector<double>>(params_[1].values));
    EXPECT_TRUE(hdf5::has_link(h5.get(), "ranges/start"));
}

}  // namespace
}  // namespace shardrun::io
