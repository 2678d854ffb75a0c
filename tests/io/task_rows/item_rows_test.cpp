#include "io/task_rows/item_rows.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::io::master {
namespace {

// 7 items in chunks of 3: tasks of 3, 3 and 1 rows; each row holds two float32 values.
const FieldSpec field{"embedding", DType::float32, {3, 2}, "m", true};
const std::vector<std::int64_t> starts{0, 3, 6}, ends{3, 6, 7};

float item_value(std::size_t item, std::size_t column) { return static_cast<float>(item * 10 + column); }

/** What shards and a running single file hold: [3 tasks, 3 rows, 2], NaN past a task's rows. */
std::vector<float> padded()
{
    std::vector<float> values;
    for (std::size_t t = 0; t < starts.size(); ++t) {
        for (std::int64_t row = 0; row < 3; ++row) {
            for (std::size_t c = 0; c < 2; ++c) {
                const auto item = starts[t] + row;
                values.push_back(item < ends[t] ? item_value(static_cast<std::size_t>(item), c)
                                                : std::numeric_limits<float>::quiet_NaN());
            }
        }
    }
    return values;
}

class ItemRows : public ::testing::TestWithParam<ItemRowsBudget> {
protected:
    void SetUp() override
    {
        dir_ = shardrun::testing::make_temp_dir("shardrun_item_rows_");
        hdf5::silence_hdf5_errors();
        file_ = hdf5::File(H5Fcreate((dir_ + "/out.h5").c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
        auto ranges = hdf5::ensure_group(file_.get(), "ranges");
        hdf5::write_column(ranges.get(), "start", H5T_STD_I64LE, H5T_NATIVE_INT64, starts.data(), starts.size());
        hdf5::write_column(ranges.get(), "end", H5T_STD_I64LE, H5T_NATIVE_INT64, ends.data(), ends.size());
        auto results = hdf5::ensure_group(file_.get(), "results");
        const auto values = padded();
        hdf5::write_field_rows(results.get(), field, values.data(), starts.size());
    }
    void TearDown() override
    {
        file_.reset();
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }

    hdf5::Dataset dataset() const { return hdf5::Dataset(H5Dopen2(file_.get(), "results/embedding", H5P_DEFAULT)); }

    std::string dir_;
    hdf5::File file_;
};

TEST_P(ItemRows, AssemblesOneArrayOverItemsWithItsShortLastChunk)
{
    assemble_item_rows(file_.get(), {field}, GetParam());

    const auto assembled = dataset();
    EXPECT_EQ(hdf5::dataset_extents(assembled.get()), (std::vector<hsize_t>{7, 2}));
    std::vector<float> values(14);
    ASSERT_GE(H5Dread(assembled.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    for (std::size_t item = 0; item < 7; ++item) {
        EXPECT_EQ(values[item * 2 + 1], item_value(item, 1)) << item;
    }
    EXPECT_EQ(hdf5::read_int_attr(assembled.get(), "item_chunk"), 3);
    EXPECT_EQ(hdf5::read_string_attr(assembled.get(), "units"), "m");
}

TEST_P(ItemRows, AssemblingTwiceChangesNothing)
{
    assemble_item_rows(file_.get(), {field}, GetParam());

    assemble_item_rows(file_.get(), {field}, GetParam());

    EXPECT_EQ(hdf5::dataset_extents(dataset().get()), (std::vector<hsize_t>{7, 2}));
}

TEST_P(ItemRows, SplitGivesBackThePaddedRows)
{
    assemble_item_rows(file_.get(), {field}, GetParam());

    split_item_rows(file_.get(), GetParam());

    const auto split = dataset();
    EXPECT_EQ(hdf5::dataset_extents(split.get()), (std::vector<hsize_t>{3, 3, 2}));
    std::vector<float> values(18);
    ASSERT_GE(H5Dread(split.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
    const auto want = padded();
    EXPECT_EQ(std::memcmp(values.data(), want.data(), want.size() * sizeof(float)), 0);
    EXPECT_FALSE(hdf5::read_int_attr(split.get(), "item_chunk").has_value());
}

TEST_P(ItemRows, ReaderGivesEachTaskItsPaddedRowsInAnyOrder)
{
    assemble_item_rows(file_.get(), {field}, GetParam());
    const auto assembled = dataset();
    ASSERT_TRUE(ItemRowsReader::assembled(assembled.get()));
    const auto want = padded();
    const auto task_floats = want.size() / starts.size();
    const auto matches = [&](const std::vector<std::byte>& got, std::size_t first, std::size_t count) {
        return got.size() == count * field.bytes() &&
               std::memcmp(got.data(), want.data() + first * task_floats, got.size()) == 0;
    };
    ItemRowsReader reader(file_.get());

    // Forward one at a time, then back to the start, then a block that ends in the short chunk.
    for (std::size_t t = 0; t < starts.size(); ++t) EXPECT_TRUE(matches(reader.read(assembled.get(), field, t, 1), t, 1)) << t;
    EXPECT_TRUE(matches(reader.read(assembled.get(), field, 0, 1), 0, 1));
    EXPECT_TRUE(matches(reader.read(assembled.get(), field, 1, 2), 1, 2));
    EXPECT_TRUE(reader.read(assembled.get(), field, 3, 0).empty());
}

TEST(ItemRowsReader, APlainDatasetIsNotAssembled)
{
    const std::string dir = shardrun::testing::make_temp_dir("shardrun_item_rows_");
    {
        hdf5::File file(H5Fcreate((dir + "/plain.h5").c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
        const auto values = padded();
        hdf5::write_field_rows(file.get(), field, values.data(), starts.size());
        hdf5::Dataset plain(H5Dopen2(file.get(), "embedding", H5P_DEFAULT));
        EXPECT_FALSE(ItemRowsReader::assembled(plain.get()));
    }
    std::filesystem::remove_all(dir);
}

// Whole in memory, and block-wise with one task per block (what fields over 256 MiB get).
INSTANTIATE_TEST_SUITE_P(Budgets, ItemRows, ::testing::Values(ItemRowsBudget{}, ItemRowsBudget{0, 1}));

}  // namespace
}  // namespace shardrun::io::master
