#include "runner/submit/sbatch.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/documented_error.hpp"
#include "runner/errors.hpp"
#include "runner/submit/slurm_scripts.hpp"

extern char** environ;

namespace shardrun::submit {
namespace {

struct Captured {
    int status = 0;
    std::string out;
};

Captured run_capturing_stdout(const std::vector<std::string>& argv)
{
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) SHARDRUN_THROW(Error, fmt::format("pipe: {}", std::strerror(errno)));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    if (error != 0) {
        ::close(pipe_fds[0]);
        SHARDRUN_THROW_DOCUMENTED(Error, "docs/troubleshooting.md#submit-errors",
                                  fmt::format("cannot run {}: {}; submit from a machine with Slurm's commands (a login node)",
                                              argv[0], std::strerror(error)));
    }
    Captured captured;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        captured.out.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipe_fds[0]);
    while (::waitpid(pid, &captured.status, 0) < 0 && errno == EINTR) {
    }
    return captured;
}

}  // namespace

std::string sbatch(const std::vector<std::string>& args)
{
    std::vector<std::string> argv = {"sbatch"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto result = run_capturing_stdout(argv);
    std::string command;
    for (const auto& arg : argv) command += (command.empty() ? "" : " ") + arg;
    if (!WIFEXITED(result.status) || WEXITSTATUS(result.status) != 0) {
        SHARDRUN_THROW_DOCUMENTED(Error, "docs/troubleshooting.md#submit-errors",
                                  fmt::format("'{}' failed (exit {}); nothing more was submitted", command,
                                              WIFEXITED(result.status) ? WEXITSTATUS(result.status) : -1));
    }
    return parse_sbatch_id(result.out);
}

}  // namespace shardrun::submit
