#pragma once

#include <string>

#include "runner/submit/submit_targets.hpp"

// Who the cloud containers are and where their image comes from: --job-role (AWS), --service-account
// (Google) and the check that --image names a registry the service can pull from.
namespace shardrun::submit {

/** --job-role and --service-account: one group of `submit --help`, listed by both cloud targets. */
extern const OptionGroup cloud_identity_options;

/**
 * Checks the shape of --job-role (an IAM role ARN) and --service-account (a service account
 * e-mail), and that each is given only to the target that uses it.
 * @throws UsageError one line naming the option and what is allowed
 */
void check_cloud_identity(const SubmitOptions& options);

/**
 * The warning line (without a newline) when a cloud target's --image names no registry host
 * (`shardrun:latest`: the service would pull it from Docker Hub) or this machine's own store
 * (`localhost/...`); "" when it names one, or for a target that runs no image.
 */
std::string image_registry_warning(const SubmitOptions& options);

}  // namespace shardrun::submit
