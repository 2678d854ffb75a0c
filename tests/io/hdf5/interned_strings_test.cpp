#include "io/hdf5/interned_strings.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/types.hpp"
#include "output_test_support.hpp"

namespace shardrun::io::hdf5 {
namespace {

/** Row i of a column of hosts in runs, with empty (pending) rows and a non-ASCII name among them. */
std::string host_of(std::uint64_t i)
{
    if (i % 11 == 5) return "";
    if (i % 13 == 7) return "nœud-ü";
    return "node-" + std::to_string(i / 1000 % 3) + ".cluster.example.org";
}

/** The stored bytes of `row` (the reference to its heap object), read from its chunk. */
std::vector<std::byte> stored_reference(hid_t dataset, std::uint64_t row, std::uint64_t chunk_rows)
{
    const hsize_t offset = row / chunk_rows * chunk_rows;
    hsize_t bytes = 0;
    EXPECT_GE(H5Dget_chunk_storage_size(dataset, &offset, &bytes), 0);
    std::vector<std::byte> chunk(static_cast<std::size_t>(bytes));
    std::uint32_t filters = 0;
    EXPECT_GE(H5Dread_chunk(dataset, H5P_DEFAULT, &offset, &filters, chunk.data()), 0);
    const auto width = static_cast<std::size_t>(bytes / chunk_rows);
    const auto* at = chunk.data() + (row - offset) * width;
    return {at, at + width};
}

class InternedStrings : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir_ = io::testing::scratch_dir();
        const auto path = dir_ + "/strings.h5";
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

TEST_F(InternedStrings, RowsReadBackAsWrittenAcrossChunksAndUnevenAppends)
{
    const std::uint64_t rows = 150001;  // three chunks of 65536, the last partial
    std::vector<std::string> expected;
    for (std::uint64_t i = 0; i < rows; ++i) expected.push_back(host_of(i));

    {
        InternedStringColumn column(file_.get(), "host", rows);
        for (std::uint64_t first = 0; first < rows; first += 40000) {
            const auto end = std::min<std::uint64_t>(first + 40000, rows);
            column.append(std::vector<std::string>(expected.begin() + first, expected.begin() + end));
        }
        column.finish();
    }

    EXPECT_EQ(read_strings(file_.get(), "host"), expected);
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file_.get(), "host", H5P_DEFAULT));
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
    EXPECT_GT(H5Tis_variable_str(type.get()), 0);
    EXPECT_EQ(H5Tget_cset(type.get()), H5T_CSET_UTF8);
}

TEST_F(InternedStrings, EqualValuesShareOneStoredReference)
{
    const std::uint64_t rows = 70000;
    std::vector<std::string> values;
    for (std::uint64_t i = 0; i < rows; ++i) values.push_back(host_of(i));

    write_interned_strings(file_.get(), "host", values);

    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file_.get(), "host", H5P_DEFAULT));
    // rows 0 and 69001 hold node-0..., in the first and the second chunk; row 2999 holds node-2...
    ASSERT_EQ(values[0], values[69001]);
    ASSERT_NE(values[0], values[2999]);
    EXPECT_EQ(stored_reference(dataset.get(), 0, 65536), stored_reference(dataset.get(), 69001, 65536));
    EXPECT_NE(stored_reference(dataset.get(), 0, 65536), stored_reference(dataset.get(), 2999, 65536));
}

TEST_F(InternedStrings, DeletingTheColumnLeavesTheFileReadable)
{
    // What converting a finished single file back to fixed-length strings does (--resume).
    write_interned_strings(file_.get(), "host", std::vector<std::string>(70000, "node-a"));
    std::vector<std::string> before, after;
    for (int i = 0; i < 1000; ++i) before.push_back("before-" + std::to_string(i));
    for (int i = 0; i < 1000; ++i) after.push_back("after-" + std::to_string(i));
    write_strings(file_.get(), "before", before);

    ASSERT_GE(H5Ldelete(file_.get(), "host", H5P_DEFAULT), 0);
    write_strings(file_.get(), "after", after);

    EXPECT_EQ(read_strings(file_.get(), "before"), before);
    EXPECT_EQ(read_strings(file_.get(), "after"), after);
}

TEST_F(InternedStrings, ManyDistinctValuesAreAllKept)
{
    std::vector<std::string> values;
    for (int i = 0; i < 9000; ++i) values.push_back("value-" + std::to_string(i % 6000));

    write_interned_strings(file_.get(), "labels", values);

    EXPECT_EQ(read_strings(file_.get(), "labels"), values);
}

TEST_F(InternedStrings, AnEmptyColumnHasNoRows)
{
    write_interned_strings(file_.get(), "host", {});

    EXPECT_TRUE(read_strings(file_.get(), "host").empty());
}

TEST_F(InternedStrings, RowsLeftUnwrittenOrTooManyAreRefused)
{
    InternedStringColumn column(file_.get(), "host", 3);

    EXPECT_THROW(column.append({"a", "b", "c", "d"}), std::logic_error);
    column.append({"a", "b"});
    EXPECT_THROW(column.finish(), std::logic_error);
}

}  // namespace
}  // namespace shardrun::io::hdf5
