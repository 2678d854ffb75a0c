#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/** The job queue the submit-job files name; `aws batch submit-job --job-queue Q` overrides it. */
inline constexpr const char* aws_default_queue = "shardrun";

/**
 * RegisterJobDefinition input of the array job: type container, one container per array
 * element with --ranks-per-node ranks (cloud_job_settings.hpp: resourceRequirements, /dev/shm, retries).
 */
nlohmann::json aws_array_job_definition(const SubmitOptions& options, const SubmitFiles& files);

/**
 * SubmitJob input of the array job: arrayProperties.size = --array (omitted for 1: AWS wants
 * 2..10000), jobQueue aws_job_queue() (`aws batch submit-job --job-queue Q` overrides it).
 */
nlohmann::json aws_array_submit(const SubmitOptions& options, const SubmitFiles& files);

/**
 * RegisterJobDefinition input of the multi-node parallel job: nodeProperties.numNodes = --nodes,
 * mainNode 0, one nodeRangeProperties entry ("0:") with the same container. It runs the whole
 * job (AWS Batch has no arrays of multi-node jobs).
 */
nlohmann::json aws_multinode_job_definition(const SubmitOptions& options, const SubmitFiles& files);

/** SubmitJob input of the multi-node parallel job. */
nlohmann::json aws_multinode_submit(const SubmitOptions& options, const SubmitFiles& files);

/** Attempts of one array element (retryStrategy.attempts): only a lost host and exit 3 use them. */
inline constexpr long aws_attempts = 5;

/**
 * RegisterJobDefinition input of the merge job: one container running `entrypoint --merge`
 * (shardrun merge of the output, MERGE INCOMPLETE naming the missing elements).
 */
nlohmann::json aws_merge_job_definition(const SubmitOptions& options, const SubmitFiles& files);

/**
 * SubmitJob input of the merge job. Its dependsOn (the array job's id, which exists only once the
 * array job is submitted) is added by the submit script: `--depends-on jobId=<id>`.
 */
nlohmann::json aws_merge_submit(const SubmitOptions& options, const SubmitFiles& files);

/** shardrun-<job name>-merge. */
std::string aws_merge_definition_name(const SubmitFiles& files);

/** The job definition names: shardrun-<job name> and shardrun-<job name>-multinode. */
std::string aws_definition_name(const SubmitFiles& files, bool multinode);

}  // namespace shardrun::submit
