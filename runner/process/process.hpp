#pragma once

#include <spawn.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace shardrun::process {

/** How a child process ended. */
/** The shell's exit codes (POSIX) for a program that could not be started: found but not executable, not found. */
inline constexpr int exit_cannot_execute = 126;
inline constexpr int exit_not_found = 127;

struct ProcessResult {
    bool started = false;
    int spawn_error = 0;   ///< errno of posix_spawnp when !started (ENOENT: not found)
    int exit_code = 0;     ///< exit status, 128 + signal when killed, 124 on timeout, 127 when not found
    bool timed_out = false;
    int signal = 0;        ///< the signal that ended it, 0 if it exited
    /**
     * The kernel's accounting from wait4(): user + system CPU seconds of the program and of the
     * descendants it waited for, and the largest resident set among them (bytes; Linux keeps
     * the maximum, not the sum). NaN and -1 when it did not start.
     */
    double cpu_seconds = std::numeric_limits<double>::quiet_NaN();
    std::int64_t peak_rss_bytes = -1;
};

/** What to start and where its output goes. */
struct ProcessSpec {
    std::vector<std::string> argv;
    std::vector<std::string> env;  ///< complete environment, "NAME=value"
    std::string stdin_path;        ///< read as the child's stdin; empty: /dev/null
    std::string stdout_path;       ///< opened (created, truncated) in the child when stdout_fd < 0
    std::string stderr_path;
    int stdout_fd = -1;            ///< else the child's stdout is this open file (see task_output.hpp)
    int stderr_fd = -1;
    std::string cwd;               ///< the child's working directory; empty: this process's
    double timeout_seconds = 0;    ///< 0: no limit
    double grace_seconds = 5;      ///< between SIGTERM and SIGKILL
    std::string token;             ///< SHARDRUN_TASK_TOKEN in env: stopping also kills what left the group
};

/**
 * Initialises spawn attributes for a task's or a worker's program: its own process group
 * and the signals shardrun handles or blocks back at their defaults, none blocked.
 * The caller destroys them.
 */
void init_task_spawn_attributes(posix_spawnattr_t& attr);

/**
 * Starts argv with posix_spawnp (PATH lookup, no shell) in its own process group and
 * waits for it; on timeout the whole group gets SIGTERM, then SIGKILL after the grace period.
 * A task ends with its program: when the program exits, whatever it left in its process
 * group gets SIGKILL at once (nothing waits for it), and after a timeout or a stop every
 * process carrying the task's token (see process_tree.hpp) is killed too.
 * @param should_stop  polled while waiting; true kills the group (shardrun interrupted)
 */
ProcessResult run_process(const ProcessSpec& spec, const std::function<bool()>& should_stop);

}  // namespace shardrun::process
