#include "io/input/dataset_reader.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "tests/support/h5_fixture.hpp"

namespace {

using namespace shardrun::io;
using shardrun::test::temp_path;
using shardrun::test::write_dataset;

class DatasetReader : public testing::Test {
protected:
    void SetUp() override
    {
        std::vector<float> values(4 * 3 * 2);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
        write_dataset(file_, "/images", {4, 3, 2}, values, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
    }
    void TearDown() override { std::remove(file_.c_str()); }

    std::string file_ = temp_path("reader.h5");
};

TEST_F(DatasetReader, ReadsARangeOfRows)
{
    const auto location = parse_dataset_location(file_ + ":/images");
    DatasetInfo info;

    const auto rows = read_float32_rows(location, 1, 3, 3, "[N, h, w]", &info);

    EXPECT_EQ(info.dims, (std::vector<std::uint64_t>{4, 3, 2}));
    EXPECT_EQ(info.dtype, "float32");
    ASSERT_EQ(rows.size(), 12u);
    EXPECT_EQ(rows.front(), 6.0f);
    EXPECT_EQ(rows.back(), 17.0f);
}

TEST_F(DatasetReader, RefusesAWrongRankWithBothShapesInTheMessage)
{
    const auto location = parse_dataset_location(file_ + ":/images");

    try {
        read_float32_rows(location, 0, 1, 2, "[N, input_dim]");
        FAIL() << "rank 3 read as rank 2";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("[4, 3, 2]"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("rank 2 [N, input_dim]"), std::string::npos) << e.what();
    }
}

TEST_F(DatasetReader, RefusesAWrongDtype)
{
    write_dataset(file_, "/rows", {2, 2}, std::vector<double>{1, 2, 3, 4}, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE);

    try {
        read_float32_rows(parse_dataset_location(file_ + ":/rows"), 0, 1, 2, "[N, input_dim]");
        FAIL() << "float64 read as float32";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("dtype float64"), std::string::npos) << e.what();
    }
}

TEST_F(DatasetReader, RefusesRowsPastTheEndAndMissingDatasets)
{
    const auto location = parse_dataset_location(file_ + ":/images");

    EXPECT_THROW(read_float32_rows(location, 3, 5, 3, "[N, h, w]"), InputError);
    EXPECT_THROW(describe_dataset(parse_dataset_location(file_ + ":/missing")), InputError);
    EXPECT_THROW(describe_dataset(parse_dataset_location("/nonexistent/x.h5:/d")), InputError);
    EXPECT_THROW(parse_dataset_location("no-colon.h5"), InputError);
}

}  // namespace
