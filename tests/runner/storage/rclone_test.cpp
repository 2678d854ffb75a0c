// A node's mirror of a remote output, rclone's filters, and the variables rclone is given.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "runner/errors.hpp"
#include "runner/storage/local_mirror.hpp"
#include "runner/storage/rclone.hpp"

namespace shardrun::storage {
namespace {

TEST(RemotePath, MirrorIsTheSameOnEveryRankOfANode)
{
    setenv("SHARDRUN_SCRATCH", "/scratch/x", 1);
    const auto a = local_mirror(*parse_remote("s3://bucket/run.h5"));
    const auto b = local_mirror(*parse_remote("s3://bucket/run.h5"));
    const auto other = local_mirror(*parse_remote("s3://bucket2/run.h5"));
    unsetenv("SHARDRUN_SCRATCH");
    EXPECT_EQ(a, b);
    EXPECT_NE(a, other);
    EXPECT_EQ(a.rfind("/scratch/x/shardrun-remote/", 0), 0U) << a;
    EXPECT_TRUE(a.ends_with("/run.h5")) << a;
}

TEST(RcloneFilters, ExactPatternEscapesGlobCharacters)
{
    EXPECT_EQ(exact_pattern("run.h5"), "/run.h5");
    EXPECT_EQ(exact_pattern("a[1]*.h5"), "/a\\[1\\]\\*.h5");
}

bool has(const std::vector<std::string>& env, const std::string& entry)
{
    return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST(RcloneEnvironment, StandardVariablesBecomeRcloneOptions)
{
    setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000", 1);
    setenv("AWS_CA_BUNDLE", "/etc/ca.pem", 1);
    setenv("STORAGE_EMULATOR_HOST", "localhost:9023", 1);
    setenv("AWS_REGION", "eu-west-1", 1);
    const auto env = rclone_environment();
    for (const char* name : {"AWS_ENDPOINT_URL", "AWS_CA_BUNDLE", "STORAGE_EMULATOR_HOST", "AWS_REGION"}) unsetenv(name);
    EXPECT_TRUE(has(env, "RCLONE_S3_ENDPOINT=http://127.0.0.1:9000"));
    EXPECT_TRUE(has(env, "RCLONE_S3_PROVIDER=Other"));
    EXPECT_TRUE(has(env, "RCLONE_S3_ENV_AUTH=true"));
    EXPECT_TRUE(has(env, "RCLONE_S3_REGION=eu-west-1"));
    EXPECT_TRUE(has(env, "RCLONE_CA_CERT=/etc/ca.pem"));
    EXPECT_FALSE(has(env, "AWS_CA_BUNDLE=/etc/ca.pem")) << "rclone 1.60 fails every S3 call with it";
    EXPECT_TRUE(has(env, "RCLONE_GCS_ENDPOINT=http://localhost:9023/storage/v1/"));
    EXPECT_TRUE(has(env, "RCLONE_GCS_ANONYMOUS=true"));
}

TEST(RcloneEnvironment, TheUsersRcloneVariablesWin)
{
    setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000", 1);
    setenv("RCLONE_S3_ENDPOINT", "https://minio.example", 1);
    const auto env = rclone_environment();
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("RCLONE_S3_ENDPOINT");
    EXPECT_TRUE(has(env, "RCLONE_S3_ENDPOINT=https://minio.example"));
    EXPECT_FALSE(has(env, "RCLONE_S3_ENDPOINT=http://127.0.0.1:9000"));
}

// Issue 34, point 3: no call can hang for minutes against an endpoint that never answers.
TEST(RcloneEnvironment, TimeoutsBoundEveryCallUnlessTheUserSetsThem)
{
    const auto env = rclone_environment();
    EXPECT_TRUE(has(env, "RCLONE_CONTIMEOUT=5s"));
    EXPECT_TRUE(has(env, "RCLONE_TIMEOUT=5s"));
    EXPECT_TRUE(has(env, "RCLONE_RETRIES=2"));
    EXPECT_TRUE(has(env, "RCLONE_LOW_LEVEL_RETRIES=1"));
    setenv("RCLONE_TIMEOUT", "2m", 1);
    const auto mine = rclone_environment();
    unsetenv("RCLONE_TIMEOUT");
    EXPECT_TRUE(has(mine, "RCLONE_TIMEOUT=2m"));
}

}  // namespace
}  // namespace shardrun::storage
