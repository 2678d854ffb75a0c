#include "runner/submit/cloud_identity.hpp"

#include <fmt/format.h>

#include <regex>
#include <string_view>

#include "runner/errors.hpp"

namespace shardrun::submit {
namespace {

// An IAM role ARN in any partition (aws, aws-cn, aws-us-gov): a 12-digit account, an optional
// path and the role's name (IAM allows letters, digits and +=,.@_- in both).
bool is_role_arn(const std::string& text)
{
    static const std::regex pattern(R"(^arn:aws(-[a-z]+)*:iam::[0-9]{12}:role/([A-Za-z0-9+=,.@_-]+/)*[A-Za-z0-9+=,.@_-]{1,64}$)");
    return std::regex_match(text, pattern);
}

// A service account's e-mail: NAME@PROJECT.iam.gserviceaccount.com, or a Google-managed one such
// as PROJECT_NUMBER-compute@developer.gserviceaccount.com.
bool is_service_account(const std::string& text)
{
    static const std::regex pattern(R"(^[a-z0-9][a-z0-9._-]*@[a-z0-9][a-z0-9.-]*\.gserviceaccount\.com$)");
    return std::regex_match(text, pattern);
}

bool is_target(const SubmitOptions& options, std::string_view name)
{
    return options.target != nullptr && options.target->name == name;
}

void add_identity_options(boost::program_options::options_description& options, SubmitOptions& o)
{
    namespace po = boost::program_options;
    options.add_options()
        ("job-role", po::value<std::string>(&o.job_role)->value_name("ARN"),
         "aws-batch: the IAM role the containers run as (jobRoleArn; how they reach S3)")
        ("service-account", po::value<std::string>(&o.service_account)->value_name("EMAIL"),
         "gcp-batch: the service account of the VMs (allocationPolicy.serviceAccount; how they reach Cloud Storage)");
}

}  // namespace

// extern: a namespace-scope const has internal linkage otherwise; the cloud targets list it.
extern const OptionGroup cloud_identity_options{"Who the cloud containers run as", add_identity_options};

void check_cloud_identity(const SubmitOptions& options)
{
    if (!options.job_role.empty()) {
        if (!is_target(options, "aws-batch")) {
            SHARDRUN_THROW(UsageError, "submit: --job-role is an AWS Batch option (--to aws-batch); on Google Cloud "
                                       "Batch the VMs' identity is --service-account EMAIL");
        }
        if (!is_role_arn(options.job_role)) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: --job-role '{}' is not an IAM role ARN; use "
                                                   "arn:aws:iam::<12-digit account>:role/<name>", options.job_role));
        }
    }
    if (!options.service_account.empty()) {
        if (!is_target(options, "gcp-batch")) {
            SHARDRUN_THROW(UsageError, "submit: --service-account is a Google Cloud Batch option (--to gcp-batch); on "
                                       "AWS Batch the containers' identity is --job-role ARN");
        }
        if (!is_service_account(options.service_account)) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: --service-account '{}' is not a service account e-mail; "
                                                   "use NAME@PROJECT.iam.gserviceaccount.com",
                                                   options.service_account));
        }
    }
}

std::string image_registry_warning(const SubmitOptions& options)
{
    if (options.target == nullptr || options.target->runs_this_executable) return {};
    const std::string& image = options.image;
    // A reference's first component is a registry host when it has a dot or a port, or is localhost
    // (the rule docker and podman apply); otherwise the name is Docker Hub's.
    const auto slash = image.find('/');
    const std::string host = slash == std::string::npos ? std::string() : image.substr(0, slash);
    const bool local = host == "localhost" || host.starts_with("localhost:") || host.starts_with("127.");
    const bool registry = host.find_first_of(".:") != std::string::npos || host == "localhost";
    const auto* push = is_target(options, "aws-batch") ? "<account>.dkr.ecr.<region>.amazonaws.com/<name>:<tag>"
                                                       : "<region>-docker.pkg.dev/<project>/<repository>/<name>:<tag>";
    const auto where = is_target(options, "aws-batch") ? "ECR" : "Artifact Registry";
    if (local) {
        return fmt::format("shardrun: warning: --image {} is this machine's image store, which {} cannot reach; push "
                           "the image to {} (scripts/build-image prints the commands) and pass --image {}",
                           image, options.target->title, where, push);
    }
    if (registry) return {};
    const auto hub = slash == std::string::npos ? "docker.io/library/" + image : "docker.io/" + image;
    return fmt::format("shardrun: warning: --image {} names no registry, so {} would pull {} from Docker Hub; push the "
                       "image to {} (scripts/build-image prints the commands) and pass --image {}",
                       image, options.target->title, hub, where, push);
}

}  // namespace shardrun::submit
