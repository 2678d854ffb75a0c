#include "collectives/nccl_version.hpp"

#include <gtest/gtest.h>

namespace shardrun::collectives {
namespace {

TEST(NcclVersion, ReportsTheLinkedLibraryOrNothing)
{
    const auto version = nccl_version();

#ifdef SHARDRUN_WITH_NCCL
    ASSERT_FALSE(version.empty());
    EXPECT_EQ(version.front(), '2');  // NCCL 2.x: the library really is linked and callable
#else
    EXPECT_TRUE(version.empty());
#endif
}

}  // namespace
}  // namespace shardrun::collectives
