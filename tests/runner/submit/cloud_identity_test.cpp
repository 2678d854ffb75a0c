#include "runner/submit/cloud_identity.hpp"

#include <gtest/gtest.h>

#include "runner/errors.hpp"

namespace shardrun::submit {
namespace {

SubmitOptions options_for(const char* target, std::string image = "shardrun:latest")
{
    SubmitOptions options;
    options.target = &find_target(target);
    options.image = std::move(image);
    return options;
}

TEST(ImageRegistryWarning, NamesDockerHubForABareOrUserName)
{
    const auto bare = image_registry_warning(options_for("aws-batch"));
    const auto user = image_registry_warning(options_for("gcp-batch", "me/sweep:2"));

    EXPECT_NE(bare.find("would pull docker.io/library/shardrun:latest from Docker Hub"), std::string::npos) << bare;
    EXPECT_NE(bare.find("<account>.dkr.ecr.<region>.amazonaws.com/"), std::string::npos) << bare;
    EXPECT_NE(user.find("would pull docker.io/me/sweep:2 from Docker Hub"), std::string::npos) << user;
    EXPECT_NE(user.find("<region>-docker.pkg.dev/<project>/<repository>/"), std::string::npos) << user;
}

TEST(ImageRegistryWarning, NamesThisMachinesStore)
{
    for (const char* image : {"localhost/shardrun:src-1", "localhost:5000/shardrun", "127.0.0.1:5000/shardrun"}) {
        const auto warning = image_registry_warning(options_for("aws-batch", image));

        EXPECT_NE(warning.find("is this machine's image store"), std::string::npos) << image << ": " << warning;
    }
}

TEST(ImageRegistryWarning, SilentForARegistryOrATargetWithoutImages)
{
    for (const char* image : {"123456789012.dkr.ecr.us-east-1.amazonaws.com/sweep:1", "ghcr.io/me/sweep",
                              "registry:5000/sweep", "europe-west4-docker.pkg.dev/p/r/sweep:1"}) {
        EXPECT_EQ(image_registry_warning(options_for("aws-batch", image)), "") << image;
    }
    EXPECT_EQ(image_registry_warning(options_for("slurm")), "");
}

TEST(CheckCloudIdentity, TakesRoleArnsAndServiceAccounts)
{
    auto aws = options_for("aws-batch");
    aws.job_role = "arn:aws:iam::123456789012:role/path/to/shardrun-job";
    auto gcp = options_for("gcp-batch");
    gcp.service_account = "runner@my-project.iam.gserviceaccount.com";

    EXPECT_NO_THROW(check_cloud_identity(aws));
    EXPECT_NO_THROW(check_cloud_identity(gcp));
}

TEST(CheckCloudIdentity, RefusesOtherShapesAndOtherTargets)
{
    auto role = options_for("aws-batch");
    role.job_role = "arn:aws:iam::123456789012:user/someone";
    auto account = options_for("gcp-batch");
    account.service_account = "someone@example.com";
    auto role_on_gcp = options_for("gcp-batch");
    role_on_gcp.job_role = "arn:aws:iam::123456789012:role/r";
    auto account_on_slurm = options_for("slurm");
    account_on_slurm.service_account = "runner@my-project.iam.gserviceaccount.com";

    EXPECT_THROW(check_cloud_identity(role), UsageError);
    EXPECT_THROW(check_cloud_identity(account), UsageError);
    EXPECT_THROW(check_cloud_identity(role_on_gcp), UsageError);
    EXPECT_THROW(check_cloud_identity(account_on_slurm), UsageError);
}

}  // namespace
}  // namespace shardrun::submit
