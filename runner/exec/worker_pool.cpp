#include "runner/exec/worker_pool.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <filesystem>
#include <stdexcept>

#include "runner/exec/results/task_shapes.hpp"
#include "runner/exec/worker_log.hpp"
#include "runner/exec/worker_state.hpp"
#include "runner/job/param_shapes.hpp"
#include "runner/tasks/rank_fatal.hpp"

namespace shardrun::exec {
namespace {

bool stopping(const TaskContext& context) { return context.stop != nullptr && context.stop->load(); }

std::chrono::steady_clock::duration seconds(double s)
{
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A large model may take minutes to load: a note after this long says the rank still waits, and why it might.
constexpr auto slow_start_note_after = std::chrono::seconds(30);
// An answer printed on stdout may be a debug echo of one also sent on fd 3: give fd 3 this long to bring it.
constexpr auto hint_grace = std::chrono::seconds(1);

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
        const bool was_ready = worker_ && worker_->ready && !worker_->ended && !worker_->retiring;
        std::uint64_t started_generation = 0;
        auto worker = draining_ ? nullptr : ready_worker(lock, context, make_launch, started_generation);
        if (!worker) return TaskOutcome::failure(1, "shardrun is stopping; the task was not sent to the worker");
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
        if (auto outcome = await_answer(*worker, context, place, sent, peer_failed, lock)) {
            if (!was_ready) outcome->began = sent_unix;
            outcome->startup_seconds = startup;
            return std::move(*outcome);
        }
    }
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

std::shared_ptr<WorkerPool::Worker> WorkerPool::ready_worker(Lock& lock, const TaskContext& context,
                                                             const std::function<WorkerLaunch()>& make_launch,
                                                             std::uint64_t& started_generation)
{
    while (true) {
        if (broken_) SHARDRUN_THROW(tasks::RankFatalError, *broken_);
        if (draining_ || stopping(context)) return nullptr;
        const auto worker = worker_;
        if (worker && !worker->ended && !worker->retiring && worker->ready) return worker;
        if (worker && !worker->ended && !worker->retiring) check_starting(*worker, context);
        if (worker && !worker->ended && !worker->retiring &&
            Clock::now() - worker->started > seconds(settings_.start_timeout_seconds)) {
            retire(*worker, "no ready line in time", std::nullopt);
            const auto tail = worker_log_tail(log_path_);
            give_up(fmt::format("exec.worker_start_timeout: the worker '{}' on rank {} sent no ready line within {} s "
                                "on $SHARDRUN_ANSWER_FD (fd 3); its output ends: {}",
                                worker->program, context.rank, settings_.start_timeout_seconds,
                                tail.empty() ? "(it wrote none, or kept it in its stdout buffer)" : tail));
        }
        if (!worker || worker->ended) {
            start_worker(make_launch);
            started_generation = generation_;
            continue;
        }
        // Starting, or ending after a timeout: wait for its ready line or its end.
        changed_.wait_for(lock, std::chrono::milliseconds(100));
    }
}

void WorkerPool::check_starting(Worker& worker, const TaskContext& context)
{
    const auto now = Clock::now();
    if (worker.stdout_answer && worker.stdout_answer->ready && now - worker.stdout_answer_at >= hint_grace) {
        give_up(fmt::format("the exec worker '{}' on rank {} is not ready: {}", worker.program, context.rank,
                            worker.stdout_answer->hint));
    }
    if (worker.slow_noted || now - worker.started < slow_start_note_after) return;
    worker.slow_noted = true;
    const auto note = fmt::format("rank {}: the exec worker '{}' is not ready after {} s; still waiting (up to "
                                  "exec.worker_start_timeout, {} s) for its ready line on $SHARDRUN_ANSWER_FD (fd 3)",
                                  context.rank, worker.program,
                                  std::chrono::duration_cast<std::chrono::seconds>(slow_start_note_after).count(),
                                  settings_.start_timeout_seconds);
    append_worker_note(log_path_, note);
    std::cerr << "shardrun: " << note << "\n";
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

void WorkerPool::start_worker(const std::function<WorkerLaunch()>& make_launch)
{
    if (worker_) retired_.push_back(worker_);
    WorkerLaunch launch;
    try {
        launch = make_launch();
    } catch (const std::invalid_argument& error) {
        give_up(fmt::format("exec.argv: {}", error.what()));
    }
    log_path_ = launch.log_path;
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(log_path_).parent_path(), ignored);
    auto worker = std::make_shared<Worker>();
    worker->generation = ++generation_;
    worker->program = launch.argv.front();
    worker->log_path = log_path_;
    worker->log_offset = log_size(log_path_);
    const int error = spawn_worker(launch, worker->handle);
    if (error != 0) {
        give_up(fmt::format("cannot start the exec worker '{}': {}", worker->program,
                            error == ENOENT ? "command not found" : std::strerror(error)));
    }
    worker->started = Clock::now();
    append_worker_note(log_path_, fmt::format("worker {} started (pid {})", worker->generation, worker->handle.pid));
    worker->reader = std::thread([this, worker] { read_answers(worker); });
    worker_ = std::move(worker);
}

void WorkerPool::give_up(std::string message)
{
    broken_ = message;
    if (worker_ && !worker_->ended) retire(*worker_, "the rank stops", std::nullopt);
    changed_.notify_all();
    SHARDRUN_THROW(tasks::RankFatalError, message);
}

void WorkerPool::retire(Worker& worker, const std::string& reason, std::optional<std::uint64_t> culprit)
{
    if (worker.retiring || worker.ended) return;
    worker.retiring = true;
    worker.retire_reason = reason;
    worker.culprit = culprit;
    worker.abandon = true;
    const auto now = Clock::now();
    worker.term_at = now;
    worker.kill_at = now + seconds(settings_.grace_seconds);
    append_worker_note(log_path_, fmt::format("stopping worker {}: {}", worker.generation, reason));
    police(worker, now);
    changed_.notify_all();
}

void WorkerPool::begin_drain()
{
    if (draining_) return;
    draining_ = true;
    if (!worker_ || worker_->ended || worker_->retiring) return;
    auto& worker = *worker_;
    worker.retiring = true;
    worker.retire_reason = "no more tasks";
    worker.abandon = true;
    const auto now = Clock::now();
    // Closed stdin tells the worker to finish what it holds; the grace period bounds that.
    worker.term_at = now + seconds(settings_.grace_seconds);
    worker.kill_at = worker.term_at + seconds(settings_.grace_seconds);
    std::lock_guard write_lock(worker.write_mutex);
    if (worker.handle.stdin_fd >= 0) close(worker.handle.stdin_fd);
    worker.handle.stdin_fd = -1;
    changed_.notify_all();
}

void WorkerPool::police(Worker& worker, Clock::time_point now)
{
    if (!worker.retiring || worker.ended) return;
    if (!worker.termed && now >= worker.term_at) {
        kill(-worker.handle.pid, SIGTERM);
        worker.termed = true;
    }
    if (!worker.killed && now >= worker.kill_at) {
        kill(-worker.handle.pid, SIGKILL);
        worker.killed = true;
    }
}

TaskOutcome WorkerPool::lost_outcome(const Worker& worker, const TaskContext& context)
{
    write_task_stderr(context.task_dir, log_path_);
    if (!worker.protocol_error.empty()) return TaskOutcome::failure(1, worker.protocol_error);
    if (worker.retiring && !worker.misbehaved) {
        return TaskOutcome::failure(exit_code_of(worker.status), fmt::format("the exec worker was stopped ({}) before it answered",
                                                                worker.retire_reason));
    }
    return TaskOutcome::failure(exit_code_of(worker.status),
                   fmt::format("the exec worker {} mid-task; a fresh one starts for the next task",
                               describe_wait_status(worker.status)));
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

}  // namespace shardrun::exec
