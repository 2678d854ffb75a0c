#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace shardrun::process {

/**
 * Finding every process a task started, including those that left its process group
 * (setsid, a double fork, a daemon): each task's environment carries
 * SHARDRUN_TASK_TOKEN=<rank token>/<task id>/<attempt>, which its descendants inherit. The
 * rank token names this shardrun process uniquely on its host (pid and start time), so a
 * token never matches another job's tasks. A process that clears its environment is not
 * found; that is the documented limit (a cgroup would be the stronger tool, but clusters
 * rarely delegate one to the job).
 */
inline constexpr std::string_view task_token_variable = "SHARDRUN_TASK_TOKEN";

/** This process's token: "<pid>-<start time in clock ticks since boot>". */
const std::string& rank_token();

/** Whether the process a rank token names ("<pid>-<start>", this host's) is still running. */
bool rank_token_alive(std::string_view token);

/** The token of one attempt of one task run by this process. */
std::string task_token(std::uint64_t task_id, int attempt);

/**
 * SIGKILLs every process (but this one) whose SHARDRUN_TASK_TOKEN equals `token` or starts
 * with `token` + "/", passing over /proc until a pass finds none, so children forked while
 * scanning are found too. @return how many processes were killed
 */
int kill_tagged(const std::string& token);

/**
 * Starts the orphan guard: a small child process that waits for this one to end, however it
 * ends (kill -9 included), and then kills every process still carrying this process's rank
 * token. So no task outlives the rank that started it. Call once, early, before MPI starts.
 */
void start_orphan_guard();

/** The guard's pid in its rank; 0 when none was started. Safe in a signal handler. */
pid_t orphan_guard_pid() noexcept;

/**
 * The guard passes SIGINT, SIGTERM and SIGUSR1 it receives on to its rank with sigqueue() and
 * this value, so that the rank can tell one signal sent to both (Slurm's scancel signals every
 * process of the step) from two signals (run/interrupt.cpp counts the first only).
 */
inline constexpr int guard_forward_mark = 0x53524744;  // "SRGD"

/**
 * Tells the guard that a task is about to start, so it looks for leftovers when this process
 * ends; a process that never started one (task: noop, a kernel) leaves the guard nothing to
 * do. Call before every spawn of a process carrying the token (cheap after the first call).
 */
void arm_orphan_guard();

}  // namespace shardrun::process
