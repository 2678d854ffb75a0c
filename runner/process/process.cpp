#include "runner/process/process.hpp"

#include "runner/process/process_tree.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <thread>

namespace shardrun::process {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<char*> c_strings(const std::vector<std::string>& strings)
{
    std::vector<char*> pointers;
    for (const auto& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
    pointers.push_back(nullptr);
    return pointers;
}

int spawn(const ProcessSpec& spec, pid_t& pid)
{
    arm_orphan_guard();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const char* input = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path.c_str();
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input, O_RDONLY, 0);
    // O_NOFOLLOW: output files are never written through a symlink planted in the task folder.
    const auto output = [&actions](int target, int fd, const std::string& path) {
        if (fd >= 0) {
            posix_spawn_file_actions_adddup2(&actions, fd, target);
        } else {
            posix_spawn_file_actions_addopen(&actions, target, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
        }
    };
    output(STDOUT_FILENO, spec.stdout_fd, spec.stdout_path);
    output(STDERR_FILENO, spec.stderr_fd, spec.stderr_path);
    // MPI's sockets and the HDF5 file are not close-on-exec: a task (or an orphan it leaves)
    // holding them keeps mpirun and the file's lock in their state after the rank is gone.
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    // Last, so the output paths above stay relative to this process's directory.
    if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
    posix_spawnattr_t attr;
    init_task_spawn_attributes(attr);
    auto argv = c_strings(spec.argv);
    auto envp = c_strings(spec.env);
    const int error = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return error;
}

// Blocks up to `wait` for the child to exit, without reaping it: until it is reaped its pid,
// and so its process group id, cannot be reused, which makes kill(-pid) safe.
bool exited(pid_t pid, int pidfd, std::chrono::milliseconds wait)
{
    if (pidfd >= 0) {
        pollfd fd{pidfd, POLLIN, 0};
        return poll(&fd, 1, static_cast<int>(wait.count())) > 0;
    }
    const auto until = Clock::now() + wait;
    auto nap = std::chrono::microseconds(100);
    while (true) {
        siginfo_t info{};
        if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
            return true;
        }
        if (Clock::now() >= until) return false;
        std::this_thread::sleep_for(nap);
        nap = std::min(nap * 2, std::chrono::microseconds(20000));
    }
}

/**
 * SHARDRUN_NO_TASK_ACCOUNTING=1 turns the accounting off (/tasks/cpu_time and mem_peak then read
 * "not measured"): only for benchmarks/run.d/accounting.py, which measures what it costs.
 */
bool task_accounting()
{
    static const bool on = std::getenv("SHARDRUN_NO_TASK_ACCOUNTING") == nullptr;
    return on;
}

double seconds(const timeval& time)
{
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) * 1e-6;
}

}  // namespace

void init_task_spawn_attributes(posix_spawnattr_t& attr)
{
    posix_spawnattr_init(&attr);
    // Own process group, so a timeout or a stop can end everything the program started.
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    for (int sig : {SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

ProcessResult run_process(const ProcessSpec& spec, const std::function<bool()>& should_stop)
{
    ProcessResult result;
    pid_t pid = 0;
    result.spawn_error = spawn(spec, pid);
    if (result.spawn_error != 0) {
        result.exit_code = result.spawn_error == ENOENT ? exit_not_found : exit_cannot_execute;
        return result;
    }
    result.started = true;
    const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    const auto started = Clock::now();
    auto kill_at = Clock::time_point::max();
    bool terminated = false;
    while (!exited(pid, pidfd, std::chrono::milliseconds(100))) {
        const auto now = Clock::now();
        const bool expired = spec.timeout_seconds > 0 &&
                             now - started >= std::chrono::duration<double>(spec.timeout_seconds);
        if (!terminated && (expired || should_stop())) {
            result.timed_out = expired;
            kill(-pid, SIGTERM);
            terminated = true;
            kill_at = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.grace_seconds));
        } else if (terminated && now >= kill_at) {
            kill(-pid, SIGKILL);
        }
    }
    if (pidfd >= 0) close(pidfd);
    // The program is over, so is the task: stragglers in its group (a background child that
    // ignores SIGTERM, say) are not waited for, and a stop flushes finished work at once.
    kill(-pid, SIGKILL);
    if (terminated && !spec.token.empty()) kill_tagged(spec.token);
    int status = 0;
    rusage usage{};
    // wait4, not waitpid: the same reap, and the kernel's accounting of the task comes with it.
    const bool accounting = task_accounting();
    while (wait4(pid, &status, 0, accounting ? &usage : nullptr) < 0 && errno == EINTR) {
    }
    if (accounting) {
        result.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
        result.peak_rss_bytes = std::int64_t{usage.ru_maxrss} * 1024;  // Linux counts ru_maxrss in KiB
    }
    if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
        result.exit_code = 128 + result.signal;
    } else {
        result.exit_code = WEXITSTATUS(status);
    }
    if (result.timed_out) result.exit_code = 124;
    return result;
}

}  // namespace shardrun::process
