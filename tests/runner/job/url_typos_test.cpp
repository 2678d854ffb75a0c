// Misspelled URLs (issue 34, point 2): refused with a suggestion; every local path and supported URL passes.
#include <gtest/gtest.h>

#include "runner/job/url_typos.hpp"

namespace shardrun::storage {
namespace {

std::string reason(const std::string& path)
{
    const auto typo = misspelled_url(path);
    return typo ? *typo : std::string("(accepted)");
}

TEST(UrlTypos, TheFieldsCasesGetTheirSuggestion)
{
    for (const auto& [typed, meant] : {std::pair{"s3:/b/x.h5", "s3://b/x.h5"}, {"S3://b/x.h5", "s3://b/x.h5"},
                                       {"s3//b/x.h5", "s3://b/x.h5"}, {"gs:/b/x.h5", "gs://b/x.h5"},
                                       {"s4://b/x.h5", "s3://b/x.h5"}, {"s3:b/x.h5", "s3://b/x.h5"},
                                       {"GS:///b/x.h5", "gs://b/x.h5"}, {"gcs:/b/x.h5", "gcs://b/x.h5"},
                                       {"Rclone:/r:x.h5", "rclone://r:x.h5"}, {"rclon://r:x.h5", "rclone://r:x.h5"},
                                       {"s3a://b/x.h5", "s3://b/x.h5"}}) {
        EXPECT_NE(reason(typed).find(std::string("did you mean ") + meant + "?"), std::string::npos) << typed << ": " << reason(typed);
        EXPECT_NE(reason(typed).find(std::string("for a local path write ./") + typed), std::string::npos) << reason(typed);
    }
}

TEST(UrlTypos, UnknownSchemesAndRcloneRemotesAreRefusedWithoutAGuess)
{
    EXPECT_NE(reason("https://host/x.h5").find("starts with the URL scheme 'https:', which shardrun does not know"),
              std::string::npos);
    // Two edits from s3 and gs both: Azure, not a typo of either.
    EXPECT_EQ(reason("az://c/x.h5").find("did you mean"), std::string::npos);
    EXPECT_NE(reason("az://c/x.h5").find("scheme 'az:'"), std::string::npos);
    EXPECT_NE(reason("c:/data/x.h5").find("scheme 'c:'"), std::string::npos);
    EXPECT_NE(reason("myremote:bucket/x.h5").find("did you mean rclone://myremote:bucket/x.h5?"), std::string::npos);
    EXPECT_NE(reason("file:///data/x.h5").find("did you mean the local path /data/x.h5?"), std::string::npos);
}

TEST(UrlTypos, LocalPathsAndSupportedUrlsPass)
{
    for (const char* path : {"results/x.h5", "x.h5", "/abs/s3:/x.h5", "./s3:/b/x.h5", "a/b:c/x.h5", "s3/b/x.h5",
                             "s3", "2024-01-01T10:00/x.h5", "_s3:/x.h5", "s3://b/x.h5", "gs://b/x.h5", "gcs://b/x.h5",
                             "rclone://remote:dir/x.h5", "../gs:/x.h5", "results//x.h5"}) {
        EXPECT_EQ(misspelled_url(path), std::nullopt) << path;
    }
}

TEST(UrlTypos, InputsCheckOnlyTheFileBeforeTheDataset)
{
    for (const char* input : {"data.h5:/x", "data:/x", "in/data.h5:/group/x", "s3://b/in.h5:/x", "./s3:/b/in.h5:/x"}) {
        EXPECT_EQ(misspelled_input_url(input), std::nullopt) << input;
    }
    EXPECT_NE(misspelled_input_url("S3://b/in.h5:/x").value_or("").find("did you mean s3://b/in.h5:/x?"), std::string::npos);
    EXPECT_NE(misspelled_input_url("s3//b/in.h5:/x").value_or("").find("did you mean s3://b/in.h5:/x?"), std::string::npos);
    EXPECT_NE(misspelled_input_url("gs:/b/in.h5").value_or("").find("did you mean gs://b/in.h5:/DATASET?"), std::string::npos);
}

}  // namespace
}  // namespace shardrun::storage
