#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/result_types.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/process/worker_process.hpp"
#include "runner/process/worker_protocol.hpp"

namespace shardrun::process {

// What a worker gives back is a task kind's outcome (runner/core/task_kind.hpp).
using tasks::TaskContext;
using tasks::TaskOutcome;

/** The exec: keys of `mode: worker` and the job-wide limits a worker obeys. */
struct WorkerSettings {
    std::vector<io::FieldSpec> fields;
    double timeout_seconds = 0;          ///< per task, from when it is sent; 0: none
    double grace_seconds = 5;            ///< drain time after stdin closes; then SIGTERM, grace, SIGKILL
    double start_timeout_seconds = 600;  ///< from spawn to the ready line
    /** Deaths in a row that stop the rank, counting only those over different tasks (or none):
     *  a task that kills its worker again and again spends its own retries, not the rank's life. */
    int restarts = 3;
};

/**
 * The rank's persistent exec worker (`exec.mode: worker`): started on the first task, fed
 * one JSON line per task on stdin, answering on SHARDRUN_ANSWER_FD. Slots call run_task()
 * concurrently; answers are matched by task_id. A timeout kills the worker's process group
 * (124) and the next task starts a fresh worker; a death fails the tasks in flight (an attempt
 * of each); too many deaths in a row over different tasks, or no ready line in time, throw
 * RankFatalError.
 */
class WorkerPool {
public:
    explicit WorkerPool(WorkerSettings settings);
    /** Closes stdin, gives the worker the grace period to exit, then SIGTERM and SIGKILL. */
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /**
     * Sends one task and waits for its answer.
     * @param place        the task's rows and result folder, sent with it and checked in its answer
     * @param make_launch  builds the worker's argv/env/log; called only when one must start
     * @param peer_failed  polled while waiting; true kills the worker (a group member failed)
     */
    TaskOutcome run_task(const TaskContext& context, const AnswerPlace& place,
                         const std::function<WorkerLaunch()>& make_launch, const std::function<bool()>& peer_failed);

private:
    struct Worker;
    struct Pending {
        std::uint64_t generation = 0;
        std::uint64_t sequence = 0;  ///< order of sending: a malformed line without task_id fails the oldest
        std::optional<WorkerAnswer> answer;
        bool lost = false;           ///< its worker ended before answering
    };
    using Lock = std::unique_lock<std::mutex>;
    using Clock = std::chrono::steady_clock;

    /**
     * Whether task `id` may be sent now: a suspect (in flight at a worker death) goes alone, once
     * nothing else is in flight, and nothing is sent beside it, nor while one waits for its turn.
     */
    bool my_turn(std::uint64_t id) const;
    void wait_for_turn(Lock& lock, const TaskContext& context);
    /** The running, ready worker; `started_generation` is set when this call had to start it. */
    std::shared_ptr<Worker> ready_worker(Lock& lock, const TaskContext& context,
                                         const std::function<WorkerLaunch()>& make_launch,
                                         std::uint64_t& started_generation);
    /** The 30 s note, or the rank's end when the worker printed its ready line on stdout. */
    void check_starting(Worker& worker, const TaskContext& context);
    void start_worker(const std::function<WorkerLaunch()>& make_launch);
    /** Waits for the task's answer, its worker's end, its timeout or a peer's failure; nullopt: send it again. */
    std::optional<TaskOutcome> await_answer(Worker& worker, const TaskContext& context, const AnswerPlace& place,
                                            Clock::time_point sent, const std::function<bool()>& peer_failed, Lock& lock);
    [[noreturn]] void give_up(std::string message);
    void retire(Worker& worker, const std::string& reason, std::optional<std::uint64_t> culprit);
    void begin_drain();
    void police(Worker& worker, Clock::time_point now);
    TaskOutcome lost_outcome(const Worker& worker, const TaskContext& context);
    TaskOutcome answered(WorkerAnswer answer, const TaskContext& context);
    /** The task fails now when its worker printed the answer on stdout (after hint_grace, as fd 3 may yet bring it). */
    std::optional<TaskOutcome> stdout_answered(const Worker& worker, const TaskContext& context, Clock::time_point sent);

    void read_answers(std::shared_ptr<Worker> worker);
    void deliver(Worker& worker, std::string_view line);
    void worker_ended(Worker& worker, int status);

    WorkerSettings settings_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::shared_ptr<Worker> worker_;
    std::vector<std::shared_ptr<Worker>> retired_;  ///< ended workers whose reader threads still need joining
    std::map<std::uint64_t, Pending> pending_;
    std::uint64_t generation_ = 0;
    std::uint64_t sequence_ = 0;
    int deaths_in_row_ = 0;
    std::vector<std::uint64_t> last_death_tasks_;  ///< the tasks in flight at the last death
    /**
     * Tasks in flight at a worker death, for the rest of the run: one of them may kill the worker
     * again (on a retry, or the parts of its chunk being split), so each goes alone and the
     * others in flight lose no attempt to it.
     */
    std::set<std::uint64_t> suspects_;
    std::optional<std::uint64_t> alone_;  ///< the suspect in flight now
    int suspects_waiting_ = 0;
    std::optional<std::string> broken_;
    bool draining_ = false;
    Clock::time_point drain_deadline_{};
    std::string log_path_;
};

}  // namespace shardrun::process
