#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/submit/submit_options.hpp"
#include "runner/submit/submit_targets.hpp"

// The sizes, retries and scheduling fields of the cloud job files (README "Sizes, Spot and
// retries"), apart from the container's command, variables and volumes.
namespace shardrun::submit {

// A container that exited 3 was drained by a stop (SIGTERM: a Spot reclaim, a job termination)
// with its finished work committed: a rerun resumes it. Exit 1 (some tasks failed) has had
// shardrun's own `retries` already, and exit 2 (bad input) would fail the same way again.
inline constexpr int exit_drained = 3;

/** The options both clouds take (image, sizes, Spot): one group of `submit --help`, listed by each cloud target. */
extern const OptionGroup cloud_options;

/** AWS resourceRequirements: VCPU = --vcpus, MEMORY = --memory (MiB), GPU = ranks x gpus-per-rank (when > 0). */
nlohmann::json aws_resource_requirements(const SubmitOptions& options);

/** AWS linuxParameters: sharedMemorySize = --shm-size (MiB). */
nlohmann::json aws_linux_parameters(const SubmitOptions& options);

/**
 * AWS retryStrategy: RETRY when the host went away (statusReason "Host EC2*": a Spot reclaim, an
 * instance failure) or the container exited 3 (drained by a stop), EXIT on anything else: exit 1
 * and 2 are answered by shardrun's own `retries` and by fixing the input, not by running it again.
 * aws_attempts (aws_batch_json.hpp) attempts.
 */
nlohmann::json aws_retry_strategy();

/** The job queue the submit-job files name: aws_default_queue, or shardrun-spot with --spot (a SPOT compute environment). */
std::string aws_job_queue(const SubmitOptions& options);

/** Google Cloud computeResource: cpuMilli = 1000 x --vcpus, memoryMib = --memory. */
nlohmann::json gcp_compute_resource(const SubmitOptions& options);

/**
 * Google Cloud lifecyclePolicies: one RETRY_TASK on exit 3 and on Batch's codes for a lost VM
 * (50001 preempted, 50002 stopped reporting, 50003 rebooted, 50006 recreated). Batch takes one
 * policy, and fails the task on every code it does not list (1 and 2 among them).
 */
nlohmann::json gcp_lifecycle_policies();

/** Google Cloud docker run options of the container: --shm-size. */
std::string gcp_container_options(const SubmitOptions& options);

/**
 * Google Cloud allocationPolicy, or null when there is nothing to ask: instances[0].policy with
 * machineType, provisioningModel SPOT under --spot and, on machines that do not come with their
 * GPUs, accelerators; installGpuDrivers with GPUs.
 */
nlohmann::json gcp_allocation_policy(const SubmitOptions& options);

}  // namespace shardrun::submit
