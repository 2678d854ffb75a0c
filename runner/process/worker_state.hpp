#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "runner/process/stdout_answer.hpp"
#include "runner/process/worker_pool.hpp"

namespace shardrun::process {

/**
 * @internal One started worker process and what the pool knows of it. Guarded by the
 * pool's mutex except `handle` fds (owned by the reader thread after start), `write_mutex`
 * and the atomic `abandon`.
 */
struct WorkerPool::Worker {
    WorkerHandle handle;
    std::uint64_t generation = 0;
    std::string program;                  ///< argv[0], for messages
    Clock::time_point started{};
    Clock::time_point ready_at{};         ///< when its ready line came: started..ready_at is its load
    std::string log_path;                 ///< the rank's worker log, its stdout and stderr
    off_t log_offset = 0;                 ///< the rank's log size at its spawn: its own output follows
    bool slow_noted = false;              ///< the "not ready after 30 s" note was given
    std::optional<StdoutAnswer> stdout_answer;  ///< the last answer-like line it printed on stdout
    Clock::time_point stdout_answer_at{};
    bool ready = false;
    bool ended = false;
    int status = 0;                       ///< waitpid status once ended
    std::optional<std::uint64_t> last_task;
    // Retiring: shardrun ends this worker on purpose (timeout, drain, end of job, peer failure).
    bool retiring = false;
    std::string retire_reason;
    std::optional<std::uint64_t> culprit; ///< the timed-out task; the others in flight are sent again
    Clock::time_point term_at = Clock::time_point::max();
    Clock::time_point kill_at = Clock::time_point::max();
    bool termed = false;
    bool killed = false;
    std::string protocol_error;           ///< set when the reader gave up on the answer stream
    bool misbehaved = false;              ///< retired for its own fault (closed its answer fd): a death
    std::mutex write_mutex;               ///< one task line at a time on stdin
    std::atomic<bool> abandon{false};     ///< stop a blocked stdin write (the worker is ending)
    std::thread reader;
};

/** True once the rank was asked to stop (its remaining tasks are not sent). */
inline bool stopping(const TaskContext& context) { return context.stop != nullptr && context.stop->load(); }

inline std::chrono::steady_clock::duration seconds(double s)
{
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

// An answer printed on stdout may be a debug echo of one also sent on fd 3: give fd 3 this long to bring it.
inline constexpr auto hint_grace = std::chrono::seconds(1);

/** "exited with status 3", "killed by signal 9". */
std::string describe_wait_status(int status);

/** The exit code a task gets when its worker ended this way (128 + signal; 1 for status 0). */
int exit_code_of(int status);

}  // namespace shardrun::process
