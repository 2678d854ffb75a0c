#pragma once

#include <sys/types.h>

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::process {

/** What to start as a rank's persistent exec worker. */
struct WorkerLaunch {
    std::vector<std::string> argv;
    std::vector<std::string> env;  ///< complete environment, "NAME=value"; SHARDRUN_ANSWER_FD is added
    std::string log_path;          ///< the rank's worker log: stdout and stderr are appended to it
    std::string cwd;               ///< the worker's working directory (exec.cwd); empty: this process's
};

/** A started worker: its pid (also its process group) and the shardrun ends of its pipes. */
struct WorkerHandle {
    pid_t pid = -1;
    int pidfd = -1;      ///< readable once the worker has exited; -1 where the kernel lacks pidfd_open
    int stdin_fd = -1;   ///< write end of the worker's stdin (one JSON line per task)
    int answer_fd = -1;  ///< read end of the worker's SHARDRUN_ANSWER_FD
};

/** The answer file descriptor number the worker sees as SHARDRUN_ANSWER_FD. */
inline constexpr int worker_answer_fd = 3;

/**
 * Starts the worker with posix_spawnp in its own process group, default signal
 * dispositions, stdin a pipe, stdout/stderr appended to the log (never through a symlink)
 * and a pipe at fd 3 for its answers. Every shardrun end is close-on-exec.
 * @return 0, or the errno of the failed spawn (ENOENT: not found); `handle` is set on success
 */
int spawn_worker(const WorkerLaunch& launch, WorkerHandle& handle);

/**
 * Writes all of `text` to the worker's stdin (non-blocking; waits in 100 ms steps while the
 * pipe is full). SIGPIPE is blocked for the write, so a dead worker gives false instead of
 * killing shardrun; `abandon` becoming true gives false too.
 */
bool write_to_worker(int fd, std::string_view text, const std::atomic<bool>& abandon);

/** Closes the shardrun ends of the pipes and the pidfd (the process is not touched). */
void close_worker_fds(WorkerHandle& handle);

}  // namespace shardrun::process
