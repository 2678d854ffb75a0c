#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "runner/core/periodic_thread.hpp"

namespace shardrun::storage {

/**
 * The tasks' checkpoint folders of an output in a bucket (README, "Checkpoints"): the mirror's
 * <name>.tasks/<id>/checkpoint/ live on one machine, which a spot reclaim or a cloud retry
 * replaces. One per node (its leader's, as the mirror is the node's): every `period_seconds`
 * (exec.checkpoint_sync; 0: only at flush) and at flush() (the end of the run, a drain's
 * included) the files that changed go up to <output>.tasks/<id>/checkpoint/ in the bucket, and
 * the bucket's copy of a folder the run removed (its task succeeded) is deleted. restore()
 * brings them all down before a run's tasks start, so a retry on a fresh machine goes on from
 * the last synced checkpoint. Failures are said on stderr, never thrown: checkpoints are not
 * results, and a lost one costs only the steps since the one before.
 */
class CheckpointSync {
public:
    /**
     * @param mirror_root  the node's folder holding the output's mirror and its <name>.tasks/
     * @param remote_root  the same place in the bucket (rclone address)
     * @param tasks_name   "<name>.tasks"
     */
    CheckpointSync(std::string mirror_root, std::string remote_root, std::string tasks_name, double period_seconds);
    ~CheckpointSync();
    CheckpointSync(const CheckpointSync&) = delete;
    CheckpointSync& operator=(const CheckpointSync&) = delete;

    /** Node leader, before the run's tasks: every checkpoint folder the bucket keeps comes down. */
    static void restore(const std::string& mirror_root, const std::string& remote_root, const std::string& tasks_name);

    /** Stops the thread, then syncs one last time. */
    void flush();

private:
    /** Uploads what changed since the last sync and deletes the bucket's copy of removed folders. */
    void sync();

    std::string mirror_root_;
    std::string remote_root_;
    std::string tasks_name_;
    std::mutex mutex_;  // one sync at a time: the thread's or flush()'s
    /** Relative path -> (size, mtime) of every file the bucket holds from this run's view. */
    std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> synced_;
    std::unique_ptr<core::PeriodicThread> thread_;  // last: started once the members exist
};

}  // namespace shardrun::storage
