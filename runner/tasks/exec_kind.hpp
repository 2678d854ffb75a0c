#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/core/task_kind.hpp"
#include "runner/process/task_output.hpp"
#include "runner/process/worker_pool.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/job/param_shapes.hpp"

namespace shardrun::tasks {

/**
 * `task: exec` — runs the user's program once per task with posix_spawnp: argv and env
 * templated from the task's parameters, in exec.cwd; stdout/stderr kept in the task directory
 * when not empty, declared results read from the JSON file named by $SHARDRUN_RESULT.
 *
 * With gpus_per_task > 1 the program starts once on every member of the group, as torchrun
 * starts its workers (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
 * MASTER_PORT); a member whose program fails gets the others' programs stopped.
 *
 * With `exec.mode: worker` the program starts once per rank (per member) instead and gets
 * its tasks as JSON lines on stdin (WorkerPool); its answers carry the declared results.
 */
class ExecKind : public TaskKind {
public:
    ExecKind(job::ExecSpec spec, double timeout_seconds, double grace_seconds);

    std::string_view name() const noexcept override { return "exec"; }
    void validate(const job::ParamMap& params, const JobView& job) const override;
    /** The declared results, then a <field>_length column per parameter-shaped field (job/param_shapes.hpp). */
    std::vector<io::FieldSpec> fields(const job::ParamMap& /*params*/) const override { return job::stored_fields(spec_.results); }
    bool fields_depend_on_params() const noexcept override { return false; }
    bool uses_task_dir() const noexcept override { return true; }
    TaskOutcome run(const TaskContext& context) const override;

private:
    using Lookup = std::function<std::optional<std::string>(std::string_view)>;
    /** `results_dir`: the folder of $SHARDRUN_RESULT, _DIR and _H5 (the output slot's, or the task's). */
    std::vector<std::string> environment(const TaskContext& context, const Lookup& lookup,
                                         const std::vector<std::string>& group_env, const std::string& results_dir) const;
    /** One member's program; `peer_failed` is polled while it runs and stops it when true. */
    TaskOutcome run_program(const TaskContext& context, const std::vector<std::string>& group_env,
                            const std::function<bool()>& peer_failed) const;
    /** One task sent to the rank's worker (mode worker); .npy answers come through an output slot's folder. */
    TaskOutcome run_worker_task(const TaskContext& context, const std::vector<std::string>& group_env,
                                const std::function<bool()>& peer_failed) const;
    /** The worker's argv, environment and log, expanded once for the rank (no per-task values). */
    process::WorkerLaunch worker_launch(const TaskContext& context, const std::vector<std::string>& group_env) const;
    std::vector<std::string> merged_env(std::vector<std::string> own) const;
    /** An outcome with values (ok, or a chunk with failed rows) with the <field>_length values of this task appended. */
    TaskOutcome with_lengths(TaskOutcome outcome, const TaskContext& context) const;
    /** argv[0] as the job file means it: a relative path with a '/' is relative to the job file's folder. */
    std::string from_job_dir(const std::string& program) const;

    job::ExecSpec spec_;
    double timeout_seconds_;
    double grace_seconds_;
    bool task_dir_before_start_;  ///< {task_dir} used, or results kept: the folder is made up front
    bool results_in_slot_;        ///< results declared, not kept: written into the output slot's folder
    std::vector<std::string> inherited_env_;
    mutable process::TaskOutputPool outputs_;  ///< scratch stdout/stderr, one pair per running task
    std::unique_ptr<process::WorkerPool> pool_;  ///< mode worker: the rank's worker, started on the first task
};

}  // namespace shardrun::tasks
