#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "collectives/communicator.hpp"
#include "io/input/dataset_reader.hpp"
#include "io/result_types.hpp"
#include "io/row_failures.hpp"
#include "runner/env/device_binding.hpp"
#include "runner/job/data_range.hpp"
#include "runner/job/param_map.hpp"

namespace shardrun::job {
struct JobSpec;
}  // namespace shardrun::job

namespace shardrun::tasks {

class DatasetShapes;

/**
 * What validate() sees of the whole job besides one task's params: the spec (data:, gpus_per_task,
 * ...) and the shape and dtype of `data.input`, read once before any task's check.
 */
struct JobView {
    const job::JobSpec* spec = nullptr;
    const io::DatasetInfo* input = nullptr;  ///< nullptr when the job has no data.input
    /** Other datasets the params name, described once per job; nullptr: describe each directly. */
    DatasetShapes* datasets = nullptr;
};

/** The rank group that runs a task together (gpus_per_task members; one member when it is 1). */
struct GroupContext {
    collectives::Communicator* comm = nullptr;  ///< the group's communicator; nullptr when alone
    int rank = 0;         ///< 0 is the leader, whose outcome is recorded
    int size = 1;
    int local_rank = 0;   ///< among the members on this node (torchrun's LOCAL_RANK)
    int local_size = 1;   ///< members on this node (LOCAL_WORLD_SIZE)
};

/** Everything one task run may look at. */
struct TaskContext {
    std::uint64_t task_id = 0;
    std::uint64_t task_count = 0;     ///< T of the whole job
    const job::ParamMap* params = nullptr;  ///< fixed params overlaid by this task's sweep point
    std::optional<job::DataRange> range;
    std::string input;                      ///< `data.input` ("file.h5:/dataset"), empty when synthetic
    env::DeviceBinding device;              ///< narrowed by the job's `device:` and the task's `device` param
    int rank = 0;
    std::string host;
    std::string task_dir;                   ///< a directory this task may write into, when uses_task_dir()
    int attempt = 1;
    const std::atomic<bool>* stop = nullptr;  ///< set when shardrun is interrupted: end early
    GroupContext group;                     ///< every member runs the same task id at the same time
    /** Attempts earlier runs made of this task (their output is kept in its folder): attempt
     *  `attempt` of this run is attempt attempt_base + attempt of the task, in /attempts and its files. */
    int attempt_base = 0;
    /** Threads the task should start (OMP_NUM_THREADS and the like, tasks/thread_variables.hpp): its
     *  rank's CPU share over the rank's slots; 0: not known (no variables set). */
    int cpu_threads = 0;
    /** <output>.tasks/<id>/checkpoint ($SHARDRUN_CHECKPOINT_DIR; uses_task_dir() only): the same for
     *  every attempt and member, kept until the task succeeds. Last: the loops initialise the
     *  members above by position. */
    std::string checkpoint_dir;
    /** The attempt as the task and every record see it (SHARDRUN_ATTEMPT, /attempts, stdout.N). */
    int attempt_number() const noexcept { return attempt_base + attempt; }
};

/** What a task run produced. */
struct TaskOutcome {
    io::TaskStatus status = io::TaskStatus::ok;
    int exit_code = 0;
    std::string message;   ///< why it failed, one line
    io::TaskValues values; ///< one buffer per field of fields(), empty when failed
    /**
     * Unix time the task's own work began, when that is later than the call of run(): a task
     * that first waited for its exec worker to load starts when the worker said ready.
     */
    std::optional<double> began;
    /** Seconds this call spent starting a worker (spawn to ready line): the rank's start-up, not the task's. */
    double startup_seconds = 0;
    /**
     * The rows of a data chunk that failed on their own (the chunk was split until they were
     * found). Not empty: the task failed, `values` hold the other rows' results, and it is
     * not retried whole (its failing rows would fail again).
     */
    std::vector<io::RowFailure> row_failures;
    /** CPU seconds and peak resident bytes of the task's own process tree (exec, task mode); NaN / -1: not measured. */
    double cpu_time = std::numeric_limits<double>::quiet_NaN();
    std::int64_t mem_peak = -1;

    /** The one way to build a failed outcome: no values, `exit_code` and one line saying why. */
    static TaskOutcome failure(int exit_code, std::string message)
    {
        TaskOutcome outcome;
        outcome.status = io::TaskStatus::failed;
        outcome.exit_code = exit_code;
        outcome.message = std::move(message);
        return outcome;
    }
};

/**
 * A kind of task (exec, noop, gemm, heat2d, ...). One instance serves a whole job and may
 * run tasks from several threads at once (slots_per_rank), so run() is const. With
 * gpus_per_task > 1, run() is called on every member of the group for the same task; it may
 * use the group's communicator, and only the leader's outcome values are recorded.
 */
class TaskKind {
public:
    virtual ~TaskKind() = default;

    virtual std::string_view name() const noexcept = 0;

    /**
     * Checks one task's parameters, and what they need of the job (its data input), before
     * anything runs. Names, types and ranges of the kind's ParamTable are already checked.
     * @param job  the job, and data.input's shape and dtype (JobView::input)
     * @throws JobFileError whose message starts with the field ("params.dt: ...", "data.input: ...");
     *         shardrun puts the field's file:line:col in front
     */
    virtual void validate(const job::ParamMap& params, const JobView& job) const = 0;

    /** The result fields every task of this job writes (may depend on params, e.g. nx). */
    virtual std::vector<io::FieldSpec> fields(const job::ParamMap& params) const = 0;
    /** False when fields() is the same for every params: a sweep's points need not compare theirs. */
    virtual bool fields_depend_on_params() const noexcept { return true; }

    /** True when run() needs TaskContext::task_dir (it is left empty otherwise, saving work per task). */
    virtual bool uses_task_dir() const noexcept { return false; }

    /** Runs one task; failures are reported in the outcome, not thrown. */
    virtual TaskOutcome run(const TaskContext& context) const = 0;
};

}  // namespace shardrun::tasks
