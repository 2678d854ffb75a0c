// DatasetShapes: the datasets a job's parameters name, each file opened once per job.
#include "runner/tasks/dataset_shapes.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "tests/support/h5_fixture.hpp"

namespace {

using namespace shardrun;
using shardrun::test::temp_path;
using shardrun::test::write_dataset;

TEST(DatasetShapes, DescribesADatasetOnceAndKeepsItsShape)
{
    const auto file = temp_path("shapes_weights.h5");
    write_dataset(file, "/w", {4, 2}, std::vector<float>(8, 1.0f), H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
    tasks::DatasetShapes shapes;

    const auto first = shapes.describe(file + ":/w");
    std::remove(file.c_str());  // a second open would fail now
    const auto& again = shapes.describe(file + ":/w");

    EXPECT_EQ(first.dims, (std::vector<std::uint64_t>{4, 2}));
    EXPECT_EQ(first.dtype, "float32");
    EXPECT_EQ(again.dims, first.dims);
    EXPECT_EQ(again.dtype, first.dtype);
}

TEST(DatasetShapes, AnUnreadableDatasetGivesTheSameErrorEachTime)
{
    const auto location = temp_path("shapes_missing.h5") + ":/w";
    tasks::DatasetShapes shapes;
    std::string first;
    std::string second;

    try {
        shapes.describe(location);
    } catch (const io::InputError& error) {
        first = error.what();
    }
    try {
        shapes.describe(location);
    } catch (const io::InputError& error) {
        second = error.what();
    }

    EXPECT_NE(first.find("cannot open"), std::string::npos) << first;
    EXPECT_EQ(second, first);
}

}  // namespace
