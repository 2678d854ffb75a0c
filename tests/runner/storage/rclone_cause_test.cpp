// Issue 34, point 8: the line of rclone's errors that names the cause, from stderr texts rclone 1.60
// wrote against moto's S3 server (a wrong key, no credentials, a frozen endpoint); and point 3's
// task ranges and patience (its timeouts: rclone_test.cpp).
#include <gtest/gtest.h>

#include <cstdlib>

#include "runner/storage/rclone.hpp"
#include "runner/storage/segment_uploader.hpp"

namespace shardrun::storage {
namespace {

TEST(RcloneCause, AWrongKeyIsQuotedNotItsStatusLine)
{
    const std::string text =
        "2026/11/28 21:52:58 ERROR : f.txt: Failed to copy: InvalidAccessKeyId: The AWS Access Key Id you provided does "
        "not exist in our records.\n"
        "\tstatus code: 403, request id: H8tbSnxGZEQ5PnX5Z3okhIegHGQTdg3RPDEY8nvlTZoh1hZqPcDr, host id: \n"
        "2026/11/28 21:52:58 ERROR : Attempt 1/1 failed with 1 errors and: InvalidAccessKeyId: The AWS Access Key Id "
        "you provided does not exist in our records.\n"
        "\tstatus code: 403, request id: H8tbSnxGZEQ5PnX5Z3okhIegHGQTdg3RPDEY8nvlTZoh1hZqPcDr, host id: \n"
        "2026/11/28 21:52:58 Failed to copy: InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in "
        "our records.\n"
        "\tstatus code: 403, request id: H8tbSnxGZEQ5PnX5Z3okhIegHGQTdg3RPDEY8nvlTZoh1hZqPcDr, host id: \n";
    EXPECT_EQ(cause_line(text), "Failed to copy: InvalidAccessKeyId: The AWS Access Key Id you provided does not exist "
                                "in our records. status code: 403");
}

TEST(RcloneCause, NoCredentialsKeepsTheProviderLine)
{
    const std::string text =
        "2026/11/28 21:52:52 ERROR : Attempt 1/1 failed with 1 errors and: NoCredentialProviders: no valid providers in "
        "chain. Deprecated.\n"
        "\tFor verbose messaging see aws.Config.CredentialsChainVerboseErrors\n"
        "2026/11/28 21:52:52 Failed to copyto: NoCredentialProviders: no valid providers in chain. Deprecated.\n"
        "\tFor verbose messaging see aws.Config.CredentialsChainVerboseErrors\n";
    EXPECT_EQ(cause_line(text), "Failed to copyto: NoCredentialProviders: no valid providers in chain. Deprecated. For "
                                "verbose messaging see aws.Config.CredentialsChainVerboseErrors");
}

TEST(RcloneCause, ANetworkCauseKeepsItsCausedByLine)
{
    const std::string text =
        "2026/11/28 21:53:29 ERROR : Attempt 1/1 failed with 1 errors and: RequestError: send request failed\n"
        "caused by: Put \"http://127.0.0.1:45123/bkt1/x/f.txt\": net/http: timeout awaiting response headers\n"
        "2026/11/28 21:53:29 Failed to copy: RequestError: send request failed\n"
        "caused by: Put \"http://127.0.0.1:45123/bkt1/x/f.txt\": net/http: timeout awaiting response headers\n";
    EXPECT_EQ(cause_line(text), "Failed to copy: RequestError: send request failed caused by: Put "
                                "\"http://127.0.0.1:45123/bkt1/x/f.txt\": net/http: timeout awaiting response headers");
}

TEST(RcloneCause, WithoutAKnownCauseTheLastMessage)
{
    EXPECT_EQ(cause_line("2026/11/28 21:53:29 Failed to copy: something new\n"), "Failed to copy: something new");
    EXPECT_EQ(cause_line(""), "");
}

TEST(UploadOutage, TasksAreNamedAsRanges)
{
    EXPECT_EQ(id_ranges({9, 3, 5, 7, 6, 10}), "3, 5-7, 9-10");
    EXPECT_EQ(id_ranges({4}), "4");
    EXPECT_EQ(id_ranges({}), "");
}

TEST(UploadOutage, PatienceComesFromTheEnvironment)
{
    unsetenv("SHARDRUN_UPLOAD_PATIENCE");
    EXPECT_EQ(upload_patience_seconds(), 300.0);
    setenv("SHARDRUN_UPLOAD_PATIENCE", "45", 1);
    EXPECT_EQ(upload_patience_seconds(), 45.0);
    unsetenv("SHARDRUN_UPLOAD_PATIENCE");
}

// An outage in the middle of a batch: what rclone -v saw copied before it failed is in the bucket.
TEST(RcloneCopied, TheFilesCopiedBeforeAFailureAreNamed)
{
    const std::string log = "2026/11/28 23:20:43 INFO  : r0/seg-000001.h5: Copied (new)\n"
                            "2026/11/28 23:20:43 INFO  : r0/seg 2.h5: Copied (replaced existing)\n"
                            "2026/11/28 23:20:49 ERROR : r0/seg-000003.h5: Failed to copy: RequestError: send request "
                            "failed\n\tcaused by: Put \"http://127.0.0.1:1/b/r0/seg-000003.h5\": i/o timeout\n"
                            "2026/11/28 23:20:49 INFO  : \nTransferred:   \t  4 B / 4 B, 100%, 0 B/s, ETA -\n"
                            "Errors:                 1 (retrying may help)\n";
    EXPECT_EQ(copied_files(log), (std::vector<std::string>{"r0/seg-000001.h5", "r0/seg 2.h5"}));
    // -v's statistics and progress name no cause: the error does.
    EXPECT_EQ(cause_line(log).find("i/o timeout") != std::string::npos, true) << cause_line(log);
    EXPECT_EQ(copied_files(""), std::vector<std::string>{});
}

}  // namespace
}  // namespace shardrun::storage
