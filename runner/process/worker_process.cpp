#include "runner/process/worker_process.hpp"

#include "runner/process/process.hpp"
#include "runner/process/process_tree.hpp"
#include "runner/process/unique_fd.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace shardrun::process {
namespace {

std::vector<char*> c_strings(const std::vector<std::string>& strings)
{
    std::vector<char*> pointers;
    for (const auto& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
    pointers.push_back(nullptr);
    return pointers;
}

}  // namespace

int spawn_worker(const WorkerLaunch& launch, WorkerHandle& handle)
{
    arm_orphan_guard();
    UniqueFd input_read, input_write, answer_read, answer_write;
    if (!make_pipe(input_read, input_write) || !make_pipe(answer_read, answer_write)) return errno;
    // dup2 onto the same number would keep close-on-exec: move the answer end off fd 3 first.
    if (answer_write.get() == worker_answer_fd) answer_write.reset(fcntl(answer_write.get(), F_DUPFD_CLOEXEC, worker_answer_fd + 1));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input_read.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, answer_write.get(), worker_answer_fd);
    // One log per rank for every worker it starts: appended, never written through a symlink.
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, launch.log_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    // Nothing else of the rank's (MPI sockets, the HDF5 file) may live on in a worker.
    posix_spawn_file_actions_addclosefrom_np(&actions, worker_answer_fd + 1);
    if (!launch.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, launch.cwd.c_str());
    posix_spawnattr_t attr;
    init_task_spawn_attributes(attr);
    auto env = launch.env;
    env.push_back("SHARDRUN_ANSWER_FD=" + std::to_string(worker_answer_fd));
    auto argv = c_strings(launch.argv);
    auto envp = c_strings(env);
    pid_t pid = -1;
    const int error = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    // The child's ends are the child's now; on failure our ends close with their owners.
    input_read.reset();
    answer_write.reset();
    if (error != 0) return error;
    handle.pid = pid;
    handle.pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    handle.stdin_fd = input_write.release();
    // Our end only: a worker that stops reading must not block a slot beyond its timeout.
    fcntl(handle.stdin_fd, F_SETFL, fcntl(handle.stdin_fd, F_GETFL) | O_NONBLOCK);
    handle.answer_fd = answer_read.release();
    return 0;
}

bool write_to_worker(int fd, std::string_view text, const std::atomic<bool>& abandon)
{
    sigset_t pipe_only, previous;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
    bool ok = true, broke = false;
    while (!text.empty()) {
        const auto written = write(fd, text.data(), text.size());
        if (written < 0 && errno == EINTR) continue;
        if (written < 0 && errno == EAGAIN) {
            if (abandon.load()) {
                ok = false;
                break;
            }
            pollfd out{fd, POLLOUT, 0};
            poll(&out, 1, 100);
            continue;
        }
        if (written <= 0) {
            ok = false;
            broke = errno == EPIPE;
            break;
        }
        text.remove_prefix(static_cast<size_t>(written));
    }
    // The SIGPIPE the failed write raised is pending on this thread: take it before unblocking.
    if (broke) {
        const timespec zero{0, 0};
        sigtimedwait(&pipe_only, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return ok;
}

void close_worker_fds(WorkerHandle& handle)
{
    for (int* fd : {&handle.pidfd, &handle.stdin_fd, &handle.answer_fd}) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
    }
}

}  // namespace shardrun::process
