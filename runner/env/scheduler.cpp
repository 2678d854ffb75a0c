#include "runner/env/scheduler.hpp"

#include "runner/errors.hpp"

namespace shardrun::env {
namespace {

bool has(const EnvLookup& env, const char* name) { return env(name).has_value(); }

void detect_launcher(const EnvLookup& env, SchedulerInfo& info)
{
    // `shardrun run` started by itself: Open MPI's singleton init gives the one process a PMIx
    // server of its own (PMIX_RANK=0), but no launcher started it, and it records none.
    if (env("OMPI_MCA_ess").value_or("") == "singleton") return;
    if (has(env, "OMPI_COMM_WORLD_SIZE")) {
        info.launcher = "open-mpi";
        info.launcher_rank = env_integer(env, "OMPI_COMM_WORLD_RANK");
        info.launcher_local_rank = env_integer(env, "OMPI_COMM_WORLD_LOCAL_RANK");
    } else if (has(env, "PMIX_RANK")) {
        info.launcher = "pmix";
        info.launcher_rank = env_integer(env, "PMIX_RANK");
    } else if (has(env, "MPI_LOCALRANKID") || has(env, "PMI_RANK")) {
        info.launcher = "mpich-hydra";
        info.launcher_rank = env_integer(env, "PMI_RANK");
        info.launcher_local_rank = env_integer(env, "MPI_LOCALRANKID");
    }
}

void detect_slurm(const EnvLookup& env, SchedulerInfo& info)
{
    info.name = "slurm";
    info.job_id = env("SLURM_ARRAY_JOB_ID").value_or(env("SLURM_JOB_ID").value_or(""));
    // srun numbers the tasks only when no MPI launcher did: mpirun's ranks inside a batch script
    // inherit the batch step's SLURM_PROCID=0, and keep their own numbers.
    if (has(env, "SLURM_PROCID") && info.launcher.empty()) {
        info.launcher = "srun";
        info.launcher_rank = env_integer(env, "SLURM_PROCID");
        info.launcher_local_rank = env_integer(env, "SLURM_LOCALID");
    }
    info.node_index = env_integer(env, "SLURM_NODEID");
    info.node_count = env_integer(env, "SLURM_JOB_NUM_NODES");
    const auto id = env_integer(env, "SLURM_ARRAY_TASK_ID");
    if (!id) return;
    const long min = env_integer(env, "SLURM_ARRAY_TASK_MIN").value_or(0);
    const long step = env_integer(env, "SLURM_ARRAY_TASK_STEP").value_or(1);
    if (step <= 0) SHARDRUN_THROW(UsageError, "environment variable SLURM_ARRAY_TASK_STEP must be positive");
    info.array_index = (*id - min) / step;
    info.array_count = env_integer(env, "SLURM_ARRAY_TASK_COUNT");
    const auto max = env_integer(env, "SLURM_ARRAY_TASK_MAX");
    if (!info.array_count && max) info.array_count = (*max - min) / step + 1;
    info.array_source = "SLURM_ARRAY_TASK_ID/_MIN/_STEP/_COUNT";
}

void detect_aws(const EnvLookup& env, SchedulerInfo& info)
{
    info.name = "aws-batch";
    info.job_id = env("AWS_BATCH_JOB_ID").value_or("");
    info.array_index = env_integer(env, "AWS_BATCH_JOB_ARRAY_INDEX");
    info.array_count = env_integer(env, "AWS_BATCH_JOB_ARRAY_SIZE");
    info.array_source = "AWS_BATCH_JOB_ARRAY_INDEX/_SIZE";
    info.node_index = env_integer(env, "AWS_BATCH_JOB_NODE_INDEX");
    info.node_count = env_integer(env, "AWS_BATCH_JOB_NUM_NODES");
    info.main_node_index = env_integer(env, "AWS_BATCH_JOB_MAIN_NODE_INDEX");
}

void detect_gcp(const EnvLookup& env, SchedulerInfo& info)
{
    info.name = "gcp-batch";
    info.job_id = env("BATCH_JOB_UID").value_or(env("BATCH_JOB_ID").value_or(""));
    info.array_index = env_integer(env, "BATCH_TASK_INDEX");
    info.array_count = env_integer(env, "BATCH_TASK_COUNT");
    info.array_source = "BATCH_TASK_INDEX/BATCH_TASK_COUNT";
}

}  // namespace

const std::vector<std::string>& scheduler_id_variables()
{
    static const std::vector<std::string> names{
        "SLURM_JOB_ID",     "SLURM_ARRAY_JOB_ID",        "SLURM_ARRAY_TASK_ID", "SLURM_STEP_ID",    "SLURM_CLUSTER_NAME",
        "AWS_BATCH_JOB_ID", "AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JQ_NAME",   "BATCH_JOB_ID",     "BATCH_JOB_UID",
        "BATCH_TASK_INDEX", "BATCH_TASK_COUNT"};
    return names;
}

SchedulerInfo detect_scheduler(const EnvLookup& env)
{
    SchedulerInfo info;
    for (const auto& name : scheduler_id_variables()) {
        if (auto value = env(name)) info.ids[name] = *value;
    }
    detect_launcher(env, info);
    if (has(env, "SLURM_JOB_ID") || has(env, "SLURM_ARRAY_TASK_ID")) {
        detect_slurm(env, info);
    } else if (has(env, "AWS_BATCH_JOB_ID") || has(env, "AWS_BATCH_JOB_ARRAY_INDEX")) {
        detect_aws(env, info);
    } else if (has(env, "BATCH_TASK_INDEX")) {
        detect_gcp(env, info);
    } else if (has(env, "PBS_JOBID") || has(env, "PBS_ARRAY_INDEX")) {
        info.name = "pbs";
        info.job_id = env("PBS_JOBID").value_or("");
        // PBS gives no array size: --array-count supplies it.
        info.array_index = env_integer(env, "PBS_ARRAY_INDEX");
        info.array_source = "PBS_ARRAY_INDEX";
    } else if (has(env, "LSB_JOBID") || has(env, "LSB_JOBINDEX")) {
        info.name = "lsf";
        info.job_id = env("LSB_JOBID").value_or("");
        // LSB_JOBINDEX is 0 outside arrays; its size is not in the environment.
        const auto index = env_integer(env, "LSB_JOBINDEX");
        if (index && *index > 0) info.array_index = index;
        info.array_source = "LSB_JOBINDEX";
    } else if (!info.launcher.empty()) {
        info.name = "mpirun";
    }
    return info;
}

namespace {

// What to do about an index outside the array: the options fix a scheduler's position, but when the user
// already passed them the fix is a different --array-index (or a larger --array-count).
std::string out_of_range_hint(bool overridden)
{
    return overridden ? "; pass an --array-index below --array-count" : ", or pass --array-index/--array-count";
}

}  // namespace

ArrayPosition resolve_array(const SchedulerInfo& scheduler, const ArrayOverrides& overrides)
{
    ArrayPosition position;
    const bool overridden = overrides.index || overrides.count;
    const auto index = overrides.index ? overrides.index : scheduler.array_index;
    const auto count = overrides.count ? overrides.count : scheduler.array_count;
    const std::string source = overridden ? "--array-index/--array-count" : scheduler.array_source;
    if (!index && !count) return position;
    if (count && *count < 1) {
        SHARDRUN_THROW(UsageError, "array count " + std::to_string(*count) + " (from " + source + ") must be at least 1");
    }
    if (index && !count) {
        SHARDRUN_THROW(UsageError, "array index " + std::to_string(*index) + " (from " + source +
                                   ") comes without an array count; pass --array-count N");
    }
    position.count = *count;
    position.index = index.value_or(0);
    position.source = source;
    if (position.index < 0 || position.index >= position.count) {
        SHARDRUN_THROW(UsageError, "array index " + std::to_string(position.index) + " (from " + source +
                                   ") is outside 0.." + std::to_string(position.count - 1) + " for an array of " +
                                   std::to_string(position.count) +
                                   " elements; indices are zero-based" + out_of_range_hint(overridden));
    }
    return position;
}

}  // namespace shardrun::env
