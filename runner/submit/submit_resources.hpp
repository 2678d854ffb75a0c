#pragma once

#include <string>
#include <string_view>

#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

// The sizes a cloud container or VM gets unless --vcpus / --memory / --shm-size say otherwise.
// With GPUs: what the usual one-GPU shape (8 vCPU, 32 GiB: g5.2xlarge, g6.2xlarge, g4dn.2xlarge,
// g2-standard-8) holds once the OS and the ECS / Batch agent have their share, per GPU. PyTorch's
// DataLoader workers pass batches through /dev/shm (Docker's default: 64 MiB).
inline constexpr long vcpus_per_gpu = 8;
inline constexpr long memory_mib_per_gpu = 30 * 1024;
inline constexpr long shm_mib_per_gpu = 8 * 1024;
// Without GPUs: 1 vCPU and cloud_container.hpp's memory_mib_per_rank per rank, 1 GiB of /dev/shm
// (Open MPI's shared-memory transport and shardrun's claim pool live there).
inline constexpr long shm_mib_cpu = 1024;

/** GPUs one cloud container or VM gets: --ranks-per-node x --gpus-per-rank. */
long gpus_per_node(const SubmitOptions& options);

/**
 * A size in MiB: a whole number with an optional binary unit (M, MiB, G, GiB, T, TiB; any case),
 * a bare number being MiB, as AWS Batch counts.
 * @throws UsageError naming `option` and the forms allowed
 */
long parse_size_mib(const std::string& text, std::string_view option);

/** One row of the GPU -> Google Cloud machine type table (README "Sizes, Spot and retries"). */
struct GcpMachine {
    std::string_view gpu_type;  ///< accelerator type, as --gpu-type
    long gpus;                  ///< GPUs the machine carries (or that are attached to it)
    std::string_view name;      ///< machine type
    long vcpus;
    long memory_gib;
    bool bundled;               ///< the machine type comes with its GPUs (A2, A3, G2): no accelerators field
};

/** The machine type the table gives for `gpus` GPUs of `gpu_type`; nullptr when the type is not in the table. */
const GcpMachine* gcp_machine_for(std::string_view gpu_type, long gpus);

/** The table's row of the machine type `name`, if any (to check --vcpus / --memory against it). */
const GcpMachine* gcp_machine_named(std::string_view name);

/**
 * Refuses a --gpu-type the machine table does not know (a typo would otherwise go into the job as
 * an accelerator no VM has), with the closest type and the list. A type newer than the table passes
 * only beside a --machine-type the table does not know either: the user names the VM by hand.
 * @throws UsageError one line
 */
void refuse_unknown_gpu_type(const SubmitOptions& options);

/**
 * Fills vcpus, memory_mib and shm_mib from the options given and the defaults above, never more
 * than `limit` holds (the machine type, when known), and checks them.
 * @throws UsageError when a size is not one, does not fit the machine, or /dev/shm exceeds the memory
 */
void resolve_cloud_sizes(SubmitOptions& options, const GcpMachine* limit = nullptr);

/**
 * Google Cloud: picks the machine type for the GPUs asked (the table, unless --machine-type names
 * one), then resolve_cloud_sizes() within it. A GPU type of the table with a count no machine
 * type carries is refused with the counts there are.
 * @throws UsageError one line
 */
void resolve_gcp_machine(SubmitOptions& options);

/** Refuses the Slurm-only options (--account, --qos, --mem, ...) for the cloud target `target`. @throws UsageError */
void reject_slurm_options(const SubmitOptions& options, std::string_view target);

/** Refuses the cloud-only options (--vcpus, --memory, --shm-size, --spot, --machine-type) for Slurm. @throws UsageError */
void reject_cloud_options(const SubmitOptions& options);

}  // namespace shardrun::submit
