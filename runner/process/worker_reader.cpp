// The reader thread of one worker: answer lines in, deaths noticed, stragglers policed.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "runner/process/worker_log.hpp"
#include "runner/process/worker_pool.hpp"
#include "runner/process/worker_state.hpp"

namespace shardrun::process {
namespace {

// Reads what is available; false at end of file or on an error.
bool read_some(int fd, std::string& buffer)
{
    char chunk[65536];
    while (true) {
        const auto got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        buffer.append(chunk, static_cast<size_t>(got));
        return true;
    }
}

bool has_exited(const WorkerHandle& handle, int pidfd_events)
{
    if (handle.pidfd >= 0) return (pidfd_events & POLLIN) != 0;
    siginfo_t info{};
    // WNOWAIT: the zombie keeps the process group id reserved until the group is killed.
    return waitid(P_PID, static_cast<id_t>(handle.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0;
}

}  // namespace

std::string describe_wait_status(int status)
{
    if (WIFSIGNALED(status)) return fmt::format("was killed by signal {}", WTERMSIG(status));
    return fmt::format("exited with status {}", WEXITSTATUS(status));
}

int exit_code_of(int status)
{
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1;
}

void WorkerPool::read_answers(std::shared_ptr<Worker> worker)
{
    const auto& handle = worker->handle;
    const auto limit = max_answer_bytes(settings_.fields);
    std::string buffer;
    bool open = true, exited = false, overlong = false;
    StdoutAnswerWatch watch(worker->log_path, worker->log_offset);
    while (open && !exited) {
        pollfd fds[2] = {{handle.answer_fd, POLLIN, 0}, {handle.pidfd, POLLIN, 0}};
        poll(fds, handle.pidfd >= 0 ? 2 : 1, 100);
        exited = has_exited(handle, fds[1].revents);
        if (fds[0].revents != 0) open = read_some(handle.answer_fd, buffer);
        // After the exit, take every answer it wrote before it went (a grandchild may hold the pipe: no wait).
        while (exited && open) {
            pollfd rest{handle.answer_fd, POLLIN, 0};
            if (poll(&rest, 1, 0) <= 0) break;
            open = read_some(handle.answer_fd, buffer);
        }
        for (auto end = buffer.find('\n'); end != std::string::npos; end = buffer.find('\n')) {
            if (!overlong) deliver(*worker, std::string_view(buffer).substr(0, end));
            overlong = false;
            buffer.erase(0, end + 1);
        }
        if (buffer.size() > limit && !overlong) {
            // The line can no longer be a valid answer; its task cannot be told, so the worker goes.
            std::lock_guard lock(mutex_);
            worker->protocol_error = fmt::format("the worker wrote an answer line longer than {} bytes", limit);
            worker->misbehaved = true;
            retire(*worker, worker->protocol_error, std::nullopt);
            overlong = true;
        }
        if (overlong) buffer.clear();
        // Outside the lock: reading the log may take a moment when the worker prints much.
        auto printed = watch.next();
        std::lock_guard lock(mutex_);
        if (printed && !worker->retiring) {
            worker->stdout_answer = std::move(printed);
            worker->stdout_answer_at = Clock::now();
            changed_.notify_all();
        }
        police(*worker, Clock::now());
    }
    // Its answer pipe closed but it lives on: give it the grace period, as in a drain, then kill it.
    while (!exited) {
        {
            std::lock_guard lock(mutex_);
            if (!worker->retiring) {
                worker->misbehaved = true;
                retire(*worker, "closed its answer file descriptor", std::nullopt);
            }
            police(*worker, Clock::now());
        }
        pollfd fd{handle.pidfd, POLLIN, 0};
        poll(&fd, handle.pidfd >= 0 ? 1 : 0, 100);
        exited = has_exited(handle, fd.revents);
    }
    kill(-handle.pid, SIGKILL);  // what it started and left behind
    int status = 0;
    while (waitpid(handle.pid, &status, 0) < 0 && errno == EINTR) {
    }
    close_worker_fds(worker->handle);
    std::lock_guard lock(mutex_);
    worker_ended(*worker, status);
}

void WorkerPool::deliver(Worker& worker, std::string_view line)
{
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
    auto answer = read_worker_answer(line, settings_.fields);
    std::lock_guard lock(mutex_);
    if (answer.kind == WorkerAnswer::Kind::ready) {
        worker.ready = true;
        worker.ready_at = Clock::now();
        changed_.notify_all();
        return;
    }
    auto target = pending_.end();
    if (answer.task_id) {
        target = pending_.find(*answer.task_id);
    } else if (worker.ready) {
        // No task named: the oldest task in flight on this worker is the one it fails.
        for (auto it = pending_.begin(); it != pending_.end(); ++it) {
            if (it->second.generation != worker.generation || it->second.answer || it->second.lost) continue;
            if (target == pending_.end() || it->second.sequence < target->second.sequence) target = it;
        }
    }
    if (target == pending_.end() || target->second.generation != worker.generation || target->second.answer) {
        append_worker_note(log_path_, fmt::format("ignored an answer line ({}): {:.200}",
                                                  answer.task_id ? "its task is not in flight" : answer.message, line));
        return;
    }
    target->second.answer = std::move(answer);
    deaths_in_row_ = 0;
    changed_.notify_all();
}

void WorkerPool::worker_ended(Worker& worker, int status)
{
    worker.ended = true;
    worker.status = status;
    append_worker_note(log_path_, fmt::format("worker {} (pid {}) {}", worker.generation, worker.handle.pid,
                                              describe_wait_status(status)));
    std::vector<std::uint64_t> held;  // the tasks it died on
    for (auto& [id, pending] : pending_) {
        if (pending.generation == worker.generation && !pending.answer) {
            pending.lost = true;
            held.push_back(id);
        }
    }
    if (!worker.retiring || worker.misbehaved) {
        // A task that was in flight at the last death too is being retried (or split): its retries
        // bound those deaths. Deaths over other tasks, or with none in flight, are the worker's own.
        const bool retry = std::any_of(held.begin(), held.end(), [&](std::uint64_t id) {
            return std::find(last_death_tasks_.begin(), last_death_tasks_.end(), id) != last_death_tasks_.end();
        });
        if (!retry) ++deaths_in_row_;
        suspects_.insert(held.begin(), held.end());
        last_death_tasks_ = std::move(held);
        if (deaths_in_row_ >= settings_.restarts && !broken_) {
            const auto tail = worker_log_tail(log_path_);
            broken_ = fmt::format("the exec worker '{}' {} ({} death{} in a row over different tasks, "
                                  "exec.worker_restarts is {}; last task {}); its output ends: {}",
                                  worker.program, describe_wait_status(status), deaths_in_row_,
                                  deaths_in_row_ == 1 ? "" : "s", settings_.restarts,
                                  worker.last_task ? std::to_string(*worker.last_task) : "none (before its first task)",
                                  tail.empty() ? "(it wrote nothing on stdout or stderr)" : tail);
        }
    }
    changed_.notify_all();
}

}  // namespace shardrun::process
