// Sending a task to the rank's worker and turning what comes back into its outcome; the
// worker's own start, retirement and drain are in worker_lifecycle.cpp.
#include "runner/process/worker_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "runner/core/rank_fatal.hpp"
#include "runner/process/results/task_shapes.hpp"
#include "runner/process/worker_log.hpp"
#include "runner/process/worker_state.hpp"
#include "runner/job/param_shapes.hpp"

namespace shardrun::process {
namespace {

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

WorkerPool::WorkerPool(WorkerSettings settings) : settings_(std::move(settings)) {}

WorkerPool::~WorkerPool()
{
    Lock lock(mutex_);
    if (worker_ && !worker_->ended && !worker_->retiring) {
        // End of the rank's tasks: EOF on stdin is the worker's signal to exit by itself.
        begin_drain();
    }
    changed_.wait(lock, [&] { return !worker_ || worker_->ended; });
    auto all = retired_;
    if (worker_) all.push_back(worker_);
    lock.unlock();
    for (auto& worker : all) {
        if (worker->reader.joinable()) worker->reader.join();
    }
}

TaskOutcome WorkerPool::run_task(const TaskContext& context, const AnswerPlace& place,
                                 const std::function<WorkerLaunch()>& make_launch, const std::function<bool()>& peer_failed)
{
    const auto id = context.task_id;
    const auto line = worker_request_line(context, place.result_dir);
    Lock lock(mutex_);
    while (true) {
        if (stopping(context)) begin_drain();
        wait_for_turn(lock, context);
        const bool was_ready = worker_ && worker_->ready && !worker_->ended && !worker_->retiring;
        std::uint64_t started_generation = 0;
        auto worker = draining_ ? nullptr : ready_worker(lock, context, make_launch, started_generation);
        if (!worker) return TaskOutcome::failure(1, "shardrun is stopping; the task was not sent to the worker");
        if (!my_turn(id)) continue;  // another slot sent one while the worker started
        if (suspects_.count(id) > 0) alone_ = id;
        pending_[id] = Pending{worker->generation, ++sequence_, std::nullopt, false};
        worker->last_task = id;
        const auto sent = Clock::now();
        const double sent_unix = unix_now();
        // Its load is the rank's start-up (counted once, by the slot that started it), not this task's time.
        const double startup = worker->generation == started_generation
                                   ? std::chrono::duration<double>(worker->ready_at - worker->started).count()
                                   : 0.0;
        lock.unlock();
        {
            std::lock_guard write_lock(worker->write_mutex);
            // A failed write means the worker is ending: its reader marks the task lost.
            if (worker->handle.stdin_fd >= 0) write_to_worker(worker->handle.stdin_fd, line, worker->abandon);
        }
        lock.lock();
        auto outcome = await_answer(*worker, context, place, sent, peer_failed, lock);
        if (alone_ == id) {
            alone_.reset();
            changed_.notify_all();
        }
        if (outcome) {
            if (!was_ready) outcome->began = sent_unix;
            outcome->startup_seconds = startup;
            return std::move(*outcome);
        }
    }
}

bool WorkerPool::my_turn(std::uint64_t id) const
{
    if (alone_) return false;
    if (suspects_.count(id) == 0) return suspects_waiting_ == 0;
    return std::none_of(pending_.begin(), pending_.end(),
                        [](const auto& entry) { return !entry.second.answer && !entry.second.lost; });
}

void WorkerPool::wait_for_turn(Lock& lock, const TaskContext& context)
{
    const bool suspect = suspects_.count(context.task_id) > 0;
    suspects_waiting_ += suspect ? 1 : 0;
    while (!my_turn(context.task_id) && !draining_ && !broken_ && !stopping(context)) {
        changed_.wait_for(lock, std::chrono::milliseconds(100));
    }
    suspects_waiting_ -= suspect ? 1 : 0;
}

std::optional<TaskOutcome> WorkerPool::await_answer(Worker& worker, const TaskContext& context, const AnswerPlace& place,
                                                    Clock::time_point sent, const std::function<bool()>& peer_failed,
                                                    Lock& lock)
{
    const auto id = context.task_id;
    while (true) {
        auto& pending = pending_.at(id);
        if (pending.answer) {
            auto answer = std::move(*pending.answer);
            pending_.erase(id);
            // Decoding a large answer (or reading its .npy files) must not hold up the reader or other slots.
            lock.unlock();
            convert_worker_results(answer, settings_.fields, place);
            lock.lock();
            return answered(std::move(answer), context);
        }
        if (pending.lost) {
            pending_.erase(id);
            if (broken_) SHARDRUN_THROW(tasks::RankFatalError, *broken_);
            // Killed for another task's timeout: this one did nothing wrong, send it again.
            if (worker.culprit && *worker.culprit != id && !draining_) return std::nullopt;
            return lost_outcome(worker, context);
        }
        if (auto outcome = stdout_answered(worker, context, sent)) {
            pending_.erase(id);
            return outcome;
        }
        if (settings_.timeout_seconds > 0 && Clock::now() - sent >= seconds(settings_.timeout_seconds)) {
            pending_.erase(id);
            retire(worker, fmt::format("task {} timed out after {} s", id, settings_.timeout_seconds), id);
            write_task_stderr(context.task_dir, log_path_);
            return TaskOutcome::failure(124, fmt::format("timed out after {} s; the worker was killed and a fresh one starts "
                                            "for the next task", settings_.timeout_seconds));
        }
        if (peer_failed()) {
            pending_.erase(id);
            retire(worker, fmt::format("a group member failed task {}", id), std::nullopt);
            return TaskOutcome::failure(1, "stopped because a group member failed");
        }
        if (stopping(context)) begin_drain();
        changed_.wait_for(lock, std::chrono::milliseconds(100));
    }
}

std::optional<TaskOutcome> WorkerPool::stdout_answered(const Worker& worker, const TaskContext& context,
                                                       Clock::time_point sent)
{
    const auto& seen = worker.stdout_answer;
    if (!seen || seen->ready || worker.stdout_answer_at < sent) return std::nullopt;
    if (seen->task_id && *seen->task_id != context.task_id) return std::nullopt;
    if (Clock::now() - worker.stdout_answer_at < hint_grace) return std::nullopt;
    write_task_stderr(context.task_dir, log_path_);
    return TaskOutcome::failure(1, seen->hint);
}

TaskOutcome WorkerPool::lost_outcome(const Worker& worker, const TaskContext& context)
{
    write_task_stderr(context.task_dir, log_path_);
    if (!worker.protocol_error.empty()) return TaskOutcome::failure(1, worker.protocol_error);
    if (worker.retiring && !worker.misbehaved) {
        return TaskOutcome::failure(exit_code_of(worker.status), fmt::format("the exec worker was stopped ({}) before it answered",
                                                                worker.retire_reason));
    }
    // The attempt counts over runs (a resume goes on counting), as /attempts does.
    return TaskOutcome::failure(exit_code_of(worker.status),
                   fmt::format("the exec worker {} on this task (attempt {}); a fresh one starts for the next task",
                               describe_wait_status(worker.status), context.attempt_number()));
}

TaskOutcome WorkerPool::answered(WorkerAnswer answer, const TaskContext& context)
{
    const bool sized = job::has_param_shapes(settings_.fields);
    if (answer.kind == WorkerAnswer::Kind::task && answer.ok) {
        TaskOutcome outcome;
        outcome.values = std::move(answer.values);  // padded to the declared shapes by convert_worker_results
        return outcome;
    }
    write_task_stderr(context.task_dir, log_path_);
    if (answer.kind == WorkerAnswer::Kind::malformed) {
        return TaskOutcome::failure(0, sized ? with_length_note(answer.message, task_shapes(settings_.fields, std::nullopt,
                                                                                            context.params))
                                             : answer.message);
    }
    return TaskOutcome::failure(1, answer.message.empty() ? "the worker answered status failed"
                                             : "the worker answered failed: " + answer.message);
}

}  // namespace shardrun::process
