#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/** taskSpec.maxRetryCount; the entrypoint's SHARDRUN_ATTEMPTS is one more. */
inline constexpr long gcp_max_retry_count = 3;

/**
 * The body of a Google Cloud Batch jobs.create request (`gcloud batch jobs submit --config`):
 * one task group of taskCount = --array tasks, all in parallel, each a container running the
 * entrypoint with --ranks-per-node ranks; shardrun reads BATCH_TASK_INDEX / BATCH_TASK_COUNT.
 * With GPUs: allocationPolicy.instances[0] installs the drivers and asks for
 * ranks x gpus-per-rank accelerators of --gpu-type.
 */
nlohmann::json gcp_batch_job(const SubmitOptions& options, const SubmitFiles& files);

/** The job name for `gcloud batch jobs submit NAME`: lowercase letters, digits and '-', a letter first. */
std::string gcp_job_name(const SubmitFiles& files);

}  // namespace shardrun::submit
