// The worker's life: started on demand, noted when slow to be ready, retired on a timeout or a
// peer's failure, drained at the end (stdin closed, then SIGTERM and SIGKILL after the grace).
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "runner/core/rank_fatal.hpp"
#include "runner/process/worker_log.hpp"
#include "runner/process/worker_pool.hpp"
#include "runner/process/worker_state.hpp"

namespace shardrun::process {
namespace {

// A large model may take minutes to load: a note after this long says the rank still waits, and why it might.
constexpr auto slow_start_note_after = std::chrono::seconds(30);

}  // namespace

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

}  // namespace shardrun::process
