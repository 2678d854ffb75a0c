#include "io/input/ranged_file_driver.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "io/input/dataset_reader.hpp"
#include "tests/support/h5_fixture.hpp"

namespace {

using namespace shardrun::io;
using shardrun::test::temp_path;
using shardrun::test::write_dataset;

/** A real HDF5 file of 4 MB read through describe_dataset(RangedFile), every range counted. */
class RangedFileDriver : public testing::Test {
protected:
    void SetUp() override
    {
        std::vector<float> values(16384 * 64, 0.5f);
        write_dataset(path_, "/rows", {16384, 64}, values, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
        std::ifstream in(path_, std::ios::binary);
        bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        file_.name = "mem://" + path_;
        file_.size = bytes_.size();
        file_.read = [this](std::uint64_t offset, std::uint64_t count) {
            read_bytes_ += count;
            return bytes_.substr(offset, count);
        };
    }
    void TearDown() override { std::remove(path_.c_str()); }

    std::string path_ = temp_path("ranged.h5");
    std::string bytes_;
    RangedFile file_;
    std::uint64_t read_bytes_ = 0;
};

TEST_F(RangedFileDriver, ReadsTheShapeFromOnePage)
{
    const auto info = describe_dataset(file_, "/rows");

    EXPECT_EQ(info.dims, (std::vector<std::uint64_t>{16384, 64}));
    EXPECT_EQ(info.dtype, "float32");
    EXPECT_EQ(info.dims, describe_dataset(parse_dataset_location(path_ + ":/rows")).dims);
    EXPECT_LE(read_bytes_, RangedFileAccess::page_size) << "of a " << bytes_.size() << "-byte file";
}

TEST_F(RangedFileDriver, AHeadAlreadyReadIsNotReadAgain)
{
    file_.head = bytes_.substr(0, RangedFileAccess::page_size);

    const auto info = describe_dataset(file_, "/rows");

    EXPECT_EQ(info.dims.front(), 16384u);
    EXPECT_EQ(read_bytes_, 0u);
}

TEST_F(RangedFileDriver, AMissingDatasetOrAFileThatIsNotHdf5IsInputError)
{
    EXPECT_THROW(describe_dataset(file_, "/missing"), InputError);
    bytes_ = std::string(100000, 'x');
    file_.size = bytes_.size();

    EXPECT_THROW(describe_dataset(file_, "/rows"), InputError);
}

TEST_F(RangedFileDriver, AFailedReadReachesTheCallerWithItsOwnMessage)
{
    file_.read = [](std::uint64_t, std::uint64_t) -> std::string { throw std::runtime_error("bucket unreachable"); };

    try {
        describe_dataset(file_, "/rows");
        FAIL() << "a failed read described a dataset";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "bucket unreachable");
    }
}

}  // namespace
