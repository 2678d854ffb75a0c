#include "io/library_info.hpp"

#include <gtest/gtest.h>

namespace shardrun::io {
namespace {

TEST(LibraryInfo, Hdf5IsParallelAndVersioned)
{
    EXPECT_TRUE(hdf5_is_parallel());
    EXPECT_EQ(hdf5_version().rfind("1.", 0), 0u) << hdf5_version();
}

}  // namespace
}  // namespace shardrun::io
