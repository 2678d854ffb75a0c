#include "runner/gpu/mps_daemon.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "runner/errors.hpp"
#include "runner/gpu/nvidia_tools.hpp"

extern char** environ;

namespace shardrun::gpu {
namespace {

// Waits for the quit, then removes the folders; the job's signals (mpirun forwards SIGTERM and
// SIGINT to the ranks, a terminal to its process group) must not end it before it has. On a
// real H100/H200 the daemon and its server were seen still alive after `quit` returned (they end
// on their own, later), and `quit` itself can wait on a server; so the watchdog waits until no
// process of this instance is left (each carries our pipe folder in its environment), and kills
// any still there after 10 s. Only then are the folders removed and the rank's stop() returns.
constexpr const char* watchdog_script =
    "trap '' INT TERM HUP USR1 USR2 QUIT PIPE\n"
    "cat >/dev/null\n"  // returns at end of file: the rank called stop(), or is gone
    "ours() {\n"  // the process name is read without a fork: a /proc scan stays cheap on a busy node
    "  for dir in /proc/[0-9]*; do\n"
    "    comm=; read -r comm <\"$dir/comm\" 2>/dev/null\n"
    "    case $comm in nvidia-cuda-mps*) ;; *) continue ;; esac\n"
    "    tr '\\0' '\\n' <\"$dir/environ\" 2>/dev/null | grep -qxF \"CUDA_MPS_PIPE_DIRECTORY=$CUDA_MPS_PIPE_DIRECTORY\" &&\n"
    "      echo \"${dir#/proc/}\"\n"
    "  done\n"
    "}\n"
    "echo quit | timeout 10 \"$1\" >>\"$CUDA_MPS_LOG_DIRECTORY/quit.out\" 2>&1\n"
    "deadline=$(($(date +%s) + 10))\n"
    "while [ -n \"$(ours)\" ] && [ $(date +%s) -lt $deadline ]; do sleep 0.1; done\n"
    "left=$(ours)\n"
    "[ -z \"$left\" ] || kill -KILL $left 2>/dev/null\n"
    "rm -rf \"$2\"\n";

std::vector<std::string> environment_with(const std::string& pipe_dir, const std::string& log_dir)
{
    std::vector<std::string> env;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        if (std::strncmp(*entry, "CUDA_MPS_", 9) != 0) env.emplace_back(*entry);
    }
    env.push_back("CUDA_MPS_PIPE_DIRECTORY=" + pipe_dir);
    env.push_back("CUDA_MPS_LOG_DIRECTORY=" + log_dir);
    return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings)
{
    std::vector<char*> result;
    for (auto& text : strings) result.push_back(text.data());
    result.push_back(nullptr);
    return result;
}

/** Spawns argv in a session of its own, stdin from `input` (or /dev/null), stdout and stderr to `output`. */
pid_t spawn(std::vector<std::string> argv, std::vector<std::string> env, int input, const std::string& output)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (input >= 0) {
        posix_spawn_file_actions_adddup2(&actions, input, STDIN_FILENO);
    } else {
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    }
    // Never the rank's stdout: a daemon holding it would keep mpirun waiting for end of file.
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigset_t defaults;
    sigfillset(&defaults);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    auto args = pointers(argv);
    auto envp = pointers(env);
    pid_t pid = -1;
    const int error = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (error != 0) {
        SHARDRUN_THROW(Error, fmt::format("cannot start {}: {}", argv[0], std::strerror(error)));
    }
    return pid;
}

/** Exit status of `pid`, waiting at most `limit`; -1 when it is still running then. */
int wait_for(pid_t pid, std::chrono::milliseconds limit)
{
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (true) {
        int status = 0;
        const pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (got < 0 && errno != EINTR) return -1;
        if (std::chrono::steady_clock::now() >= deadline) return -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

std::string make_root()
{
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/shardrun-mps-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
        SHARDRUN_THROW(Error, fmt::format("gpu_sharing: mps: cannot make a folder for the MPS daemon ({}): {}; set TMPDIR "
                                          "to a writable node-local folder",
                                          pattern, std::strerror(errno)));
    }
    return pattern;
}

}  // namespace

std::string find_mps_control() { return find_on_path(mps_control_program); }

MpsDaemon::MpsDaemon(const std::string& program) : program_(program), root_(make_root())
{
    pipe_dir_ = root_ + "/pipe";
    log_dir_ = root_ + "/log";
    mkdir(pipe_dir_.c_str(), 0700);
    mkdir(log_dir_.c_str(), 0700);
    const auto env = environment_with(pipe_dir_, log_dir_);
    // The watchdog first: from here on no ending of this process leaves a daemon behind.
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) SHARDRUN_THROW(Error, std::string("pipe2: ") + std::strerror(errno));
    try {
        watchdog_ = spawn({"/bin/sh", "-c", watchdog_script, "shardrun-mps-watchdog", program_, root_}, env, ends[0],
                          "/dev/null");
    } catch (...) {
        close(ends[0]);
        close(ends[1]);
        std::filesystem::remove_all(root_);
        throw;
    }
    close(ends[0]);
    watchdog_pipe_ = ends[1];
    const auto started = spawn({program_, "-d"}, env, -1, log_dir_ + "/start.out");
    const int status = wait_for(started, std::chrono::seconds(30));
    if (status != 0) {
        std::ifstream said(log_dir_ + "/start.out");
        std::string line;
        std::getline(said, line);
        stop();
        SHARDRUN_THROW(Error, fmt::format("gpu_sharing: mps: '{} -d' {}{}", program_,
                                          status < 0 ? "did not return within 30 s" : fmt::format("exited with status {}", status),
                                          line.empty() ? "" : ": " + line));
    }
}

MpsDaemon::~MpsDaemon() { stop(); }

void MpsDaemon::stop()
{
    if (watchdog_pipe_ >= 0) {
        close(watchdog_pipe_);
        watchdog_pipe_ = -1;
    }
    if (watchdog_ > 0) {
        // The watchdog's own limits (10 s for quit, 10 s for the processes to go) bound this.
        if (wait_for(watchdog_, std::chrono::seconds(25)) < 0) {
            std::fprintf(stderr, "shardrun: the MPS daemon of %s is still stopping; its watchdog will finish it\n",
                         root_.c_str());
        }
        watchdog_ = -1;
    }
}

}  // namespace shardrun::gpu
