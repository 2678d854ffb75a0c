// Remote paths (s3://, gs://, rclone://) of a job file, as rclone names them.
#include <gtest/gtest.h>

#include "runner/errors.hpp"
#include "runner/job/remote_path.hpp"

namespace shardrun::storage {
namespace {

TEST(RemotePath, S3AndGcsUseRclonesOnTheFlyBackends)
{
    const auto s3 = parse_remote("s3://bucket/runs/p1/run.h5");
    ASSERT_TRUE(s3);
    EXPECT_EQ(s3->rclone, ":s3:bucket/runs/p1/run.h5");
    EXPECT_EQ(s3->parent, ":s3:bucket/runs/p1");
    EXPECT_EQ(s3->name, "run.h5");
    const auto gs = parse_remote("gs://bucket/run.h5");
    ASSERT_TRUE(gs);
    EXPECT_EQ(gs->rclone, ":gcs:bucket/run.h5");
    EXPECT_EQ(gs->parent, ":gcs:bucket");
    const auto shards = with_suffix(*s3, ".shards/a0");
    EXPECT_EQ(shards.rclone, ":s3:bucket/runs/p1/run.h5.shards/a0");
    EXPECT_EQ(shards.url, "s3://bucket/runs/p1/run.h5.shards/a0");
}

TEST(RemotePath, RcloneNamesAConfiguredRemote)
{
    const auto top = parse_remote("rclone://azure:run.h5");
    ASSERT_TRUE(top);
    EXPECT_EQ(top->rclone, "azure:run.h5");
    EXPECT_EQ(top->parent, "azure:");
    EXPECT_EQ(top->name, "run.h5");
    const auto deep = parse_remote("rclone://b2:bucket/x/run.h5");
    ASSERT_TRUE(deep);
    EXPECT_EQ(deep->parent, "b2:bucket/x");
}

TEST(RemotePath, LocalPathsAreNotRemote)
{
    EXPECT_FALSE(is_remote("results/run.h5"));
    EXPECT_FALSE(parse_remote("/abs/s3://x"));
    EXPECT_TRUE(is_remote("s3://b/k"));
}

TEST(RemotePath, PathsWithoutAnObjectAreRefused)
{
    EXPECT_THROW(parse_remote("s3://bucket"), UsageError);
    EXPECT_THROW(parse_remote("s3://bucket/"), UsageError);
    EXPECT_THROW(parse_remote("gs:///key"), UsageError);
    EXPECT_THROW(parse_remote("rclone://noremote"), UsageError);
}

}  // namespace
}  // namespace shardrun::storage
