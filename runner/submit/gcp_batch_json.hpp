#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/** taskSpec.maxRetryCount: 5 attempts in all, as on AWS; only a lost VM and exit 3 use them. */
inline constexpr long gcp_max_retry_count = 4;

/**
 * The body of a Google Cloud Batch jobs.create request (`gcloud batch jobs submit --config`):
 * one task group of taskCount = --array tasks, all in parallel, each a container running the
 * entrypoint with --ranks-per-node ranks; shardrun reads BATCH_TASK_INDEX / BATCH_TASK_COUNT.
 * Sizes, retries and the allocationPolicy (machine type, Spot, GPUs): cloud_job_settings.hpp.
 */
nlohmann::json gcp_batch_job(const SubmitOptions& options, const SubmitFiles& files);

/** The job name for `gcloud batch jobs submit NAME`: lowercase letters, digits and '-', a letter first. */
std::string gcp_job_name(const SubmitFiles& files);

}  // namespace shardrun::submit
