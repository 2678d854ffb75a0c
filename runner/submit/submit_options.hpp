#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::submit {

struct TargetEntry;  // runner/submit/submit_targets.hpp

/**
 * Requeues of one Slurm element after a drain, at most (--max-requeues): each must have let at
 * least one task finish (exit 3; a drain without progress, exit 4, is never requeued), and 20
 * cycles of a day's --time is weeks of allocation, where a loop would show long before.
 */
inline constexpr long default_max_requeues = 20;

/** What `shardrun submit` was asked for, checked by validate(). */
struct SubmitOptions {
    std::string job_file;
    const TargetEntry* target = nullptr;  ///< --to, from find_target()
    long array = 1;             ///< array elements
    long nodes = 1;             ///< nodes per element (Slurm, AWS multi-node)
    long ranks_per_node = 1;    ///< MPI ranks on each node
    long gpus_per_rank = 0;     ///< GPUs each rank gets (0: CPU only)
    std::string time;           ///< Slurm time limit as given ("" = the partition's default)
    long time_seconds = 0;      ///< the same in seconds (0 = none)
    std::string partition;      ///< Slurm partition ("" = the default one)
    std::string image;          ///< container image of the cloud targets
    std::string gpu_type;       ///< Google Cloud accelerator type
    bool dry_run = false;
    std::vector<std::string> overrides;  ///< --set key.path=value, passed on to `shardrun run`
    std::string shardrun;       ///< the shardrun the scripts start ("" = default of the target)
    // Sizes and scheduling (runner/submit/submit_resources.hpp fills the defaults; 0 / "" = not given).
    long vcpus = 0;             ///< --vcpus: vCPUs of one cloud container / VM (an element, or a node)
    std::string memory;         ///< --memory as given (binary units: 30G, 30720M, 30720 = MiB)
    long memory_mib = 0;        ///< the same in MiB
    std::string shm_size;       ///< --shm-size as given
    long shm_mib = 0;           ///< the same in MiB
    bool spot = false;          ///< --spot: Spot VMs (GCP provisioningModel; the AWS queue shardrun-spot)
    std::string machine_type;   ///< --machine-type: Google Cloud machine type ("" = from the GPU table)
    std::string account;        ///< Slurm --account, both scripts
    std::string qos;            ///< Slurm --qos, run.sbatch
    std::string mem;            ///< Slurm --mem, run.sbatch, as sbatch takes it
    long cpus_per_task = 0;     ///< Slurm --cpus-per-task, run.sbatch
    std::vector<std::string> sbatch_lines;  ///< --sbatch: more #SBATCH options for run.sbatch
    long max_requeues = default_max_requeues;  ///< slurm: requeues of one element after a drain, at most
    std::string merge_partition;            ///< merge.sbatch's partition ("" = the cluster's default)
    std::string merge_time;                 ///< merge.sbatch's time limit ("" = default_merge_time)
    std::string workdir;        ///< --workdir: the folder the cloud containers run in (uploaded next to a bucket output)
    std::string shared_fs;      ///< --shared-fs: the folder of this machine the cloud containers mount at the same path
    std::set<std::string> given;  ///< the options named on the command line (a default_value is not given)
    std::string job_role;       ///< --job-role: AWS IAM role ARN the containers run as (jobRoleArn)
    std::string service_account;  ///< --service-account: Google service account e-mail of the VMs
};

/** The image the cloud job files name unless --image is given: what the project's Dockerfile builds. */
inline constexpr std::string_view default_image = "shardrun:latest";
/** merge.sbatch's time limit unless --merge-time is given: a merge reads every shard once. */
inline constexpr std::string_view default_merge_time = "1:00:00";
/** Google Cloud accelerator type used when GPUs are asked and --gpu-type is not given. */
inline constexpr std::string_view default_gpu_type = "nvidia-tesla-t4";

/**
 * Parses a Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS.
 * @return seconds
 * @throws UsageError when `text` is none of those
 */
long parse_time_limit(const std::string& text);

/**
 * Checks counts and combinations, then the target's own (fills time_seconds). Touches no file.
 * @throws UsageError one line naming the option and what is allowed
 */
void validate(SubmitOptions& options);

}  // namespace shardrun::submit
