#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/env/env_lookup.hpp"

namespace shardrun::env {

/** What the batch system (or launcher) says about this process, straight from its variables. */
struct SchedulerInfo {
    std::string name = "none";      ///< slurm | aws-batch | gcp-batch | pbs | lsf | mpirun | none
    std::string launcher;           ///< open-mpi | pmix | mpich-hydra | srun | "" (how ranks were started)
    std::string job_id;
    std::optional<long> array_index;  ///< zero-based position in the array, when the scheduler gives it
    std::optional<long> array_count;
    std::string array_source;         ///< the variables array_index/array_count came from
    std::optional<long> node_index;   ///< AWS multi-node: AWS_BATCH_JOB_NODE_INDEX; Slurm: SLURM_NODEID
    std::optional<long> node_count;
    std::optional<long> main_node_index;
    std::optional<long> launcher_rank;        ///< SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK
    std::optional<long> launcher_local_rank;  ///< SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID
    /**
     * The scheduler's own names for this run, as set (variable name -> value): Slurm's job, array,
     * step and cluster, AWS Batch's job, array index and queue, Google Batch's job and task.
     * Recorded in the output's provenance (scheduler_id_variables()).
     */
    std::map<std::string, std::string> ids;
};

/** The variables SchedulerInfo::ids is read from, in the order the docs list them. */
const std::vector<std::string>& scheduler_id_variables();

/**
 * Reads Slurm, AWS Batch, Google Cloud Batch, PBS, LSF and MPI launcher variables.
 *
 * First match wins in that order. Slurm array indices are made zero-based:
 * (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP.
 * @throws UsageError when a variable is set but not an integer.
 */
SchedulerInfo detect_scheduler(const EnvLookup& env);

/** Where this process sits in the array job: element `index` of `count`. */
struct ArrayPosition {
    long index = 0;
    long count = 1;
    std::string source = "default";  ///< "--array-index/--array-count", a variable name, or "default"
};

/** Command-line overrides; each wins over every environment variable. */
struct ArrayOverrides {
    std::optional<long> index;
    std::optional<long> count;
};

/**
 * Combines the scheduler's array position with the overrides.
 * @throws UsageError when the index is not in [0, count) or the count is unknown.
 */
ArrayPosition resolve_array(const SchedulerInfo& scheduler, const ArrayOverrides& overrides);

}  // namespace shardrun::env
