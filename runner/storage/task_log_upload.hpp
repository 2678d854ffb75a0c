#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/attempt_log.hpp"
#include "runner/core/periodic_thread.hpp"

namespace shardrun::storage {

/**
 * Bytes of one stream (a stdout or stderr file, a worker log) kept in the bucket: its last 1 MiB.
 * A task that floods its stderr must not cost an upload per attempt of its whole size; the
 * error is at the end.
 */
constexpr std::uintmax_t kept_log_bytes = 1024 * 1024;

/**
 * Copies `from` to `to`, whole when it holds at most `limit` bytes; otherwise its last `limit`
 * bytes from the first line's start in them, after a line "[first N bytes cut]" (N: what was
 * left out), so that a reader knows it sees a tail. @return false when `from` cannot be read
 */
bool copy_log_tail(const std::string& from, const std::string& to, std::uintmax_t limit = kept_log_bytes);

/**
 * One rank's task logs in the bucket (README, "Results in object storage"): the stdout and stderr
 * of each failed attempt (of every attempt with exec.keep_files) go up beside the segments, as
 * <output>.tasks/<id>/{stdout,stderr}.<attempt> like a local output keeps them, each cut to its
 * last kept_log_bytes. The local files are copied (cut) into this rank's staging folder when the
 * task ends and put in the bucket by a background thread every period, in one rclone call, as
 * the segments are; so `shardrun logs URL ID` and `status URL` see them while the run goes on,
 * and a machine that disappears loses at most one period's.
 */
class TaskLogUploader {
public:
    /**
     * @param mirror_root  the node's folder holding the output's mirror and its <name>.tasks/
     * @param remote_root  the same place in the bucket (rclone address)
     * @param worker_log   this rank's worker log (<name>.tasks/worker-rank<r>.log), uploaded at
     *                     flush() when it exists
     * @param rank         names this rank's staging folder (ranks of a node share the mirror)
     */
    TaskLogUploader(std::string mirror_root, std::string remote_root, std::string worker_log, int rank,
                    double period_seconds);
    ~TaskLogUploader();
    TaskLogUploader(const TaskLogUploader&) = delete;
    TaskLogUploader& operator=(const TaskLogUploader&) = delete;

    /**
     * A task's attempts ended: stages the output of `attempts` (numbers) kept in `task_dir`, and
     * with `latest` the plain stdout and stderr too (the latest attempt's, which `logs` and
     * `status` read first). Called from the slots' threads.
     */
    void keep(const std::string& task_dir, const std::vector<int>& attempts, bool latest);
    /**
     * keep() for the attempts of `attempts` that failed (all of them with `every_attempt`:
     * exec.keep_files); the plain files too when the last one is among them.
     */
    void keep_attempts(const std::string& task_dir, const std::vector<io::AttemptRecord>& attempts, bool every_attempt);

    /**
     * Stops the thread and uploads what is staged, the worker log with it. A failure is said on
     * stderr, not thrown: logs are not results, and the run's outcome does not depend on them.
     */
    void flush();

private:
    void stage(const std::string& file);
    /** Puts what is staged in the bucket; false when rclone failed (error_ says why). */
    bool upload_staged();

    std::string mirror_root_;
    std::string remote_root_;
    std::string worker_log_;
    std::string staging_;
    std::mutex mutex_;         // staged_ and error_: held briefly, the slots' threads wait on it
    std::mutex upload_mutex_;  // one upload at a time: the thread's or flush()'s
    std::vector<std::string> staged_;  ///< relative to mirror_root_ (and staging_)
    std::string error_;
    std::unique_ptr<core::PeriodicThread> thread_;
};

}  // namespace shardrun::storage
