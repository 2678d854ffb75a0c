#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runner/process/live_index.hpp"

namespace shardrun::process {

/**
 * A task's stdout and stderr without a new file per task. Creating files is most of what
 * dispatching a short program costs on ext4 (inode allocation), and most tasks write
 * nothing: so the program writes into a pair of scratch files in <output>.tasks/ that the
 * next task reuses while they stay empty. Only output that was written is kept, by renaming
 * the scratch file to <task_dir>/stdout or stderr (no copy, and a rename never writes
 * through a symlink planted there); a fresh scratch file then takes its place. Result files
 * go the same way: into a scratch folder of the slot, moved to <task_dir> only when kept.
 */
class TaskOutput {
public:
    /**
     * @param tasks_dir  <output>.tasks, created if missing; the scratch files live there so that
     *                   keeping one is a rename on the same file system
     * @param name       unique among every process that writes into tasks_dir (host, process, slot)
     */
    TaskOutput(std::string tasks_dir, std::string name);
    ~TaskOutput();
    TaskOutput(const TaskOutput&) = delete;
    TaskOutput& operator=(const TaskOutput&) = delete;

    int stdout_fd() const noexcept { return fds_[0]; }
    int stderr_fd() const noexcept { return fds_[1]; }

    /** The last non-blank line the task wrote to stderr, at most 160 characters; empty if none. */
    std::string stderr_tail() const;

    /**
     * After the program ended: a non-empty file becomes <task_dir>/stdout.<attempt> or
     * stderr.<attempt> (creating task_dir), every attempt's own, and <task_dir>/stdout or
     * stderr is made a hard link to it (the latest output, where readers have always looked);
     * an empty one stays here for the next task. @return an error message, or empty
     */
    std::string keep(const std::string& task_dir, int attempt);

    /** The live file of stream 0 (stdout) or 1 (stderr) while a task writes into it. */
    const std::string& scratch_path(int stream) const { return scratch_paths_[stream]; }

    /** The slot's running index, which names the task running and these live files (live_index.hpp). */
    LiveIndex& index() { return *index_; }

    /**
     * This slot's own folder for a task's result files ($SHARDRUN_RESULT, _DIR, _H5), made on
     * first use and reused by the next task, so that a task with declared results needs no
     * folder of its own. @throws io::WriteError when it cannot be made
     */
    const std::string& result_dir();

    /**
     * Moves those of `names` that exist in result_dir() into `task_dir` (creating it): what a
     * failed task wrote, or every result file with exec.keep_files. @return an error message, or empty
     */
    std::string keep_results(const std::string& task_dir, const std::vector<std::string>& names);

private:
    void open_scratch(int stream);
    void close_scratch(int stream);

    std::string tasks_dir_;
    std::string name_;
    std::string scratch_paths_[2];  ///< named once: every task's index and every keep() name them
    std::string result_dir_;  ///< empty until result_dir() made it
    int fds_[2] = {-1, -1};
    std::unique_ptr<LiveIndex> index_;  ///< made after the scratch files (their folder exists then)
};

/** One TaskOutput per concurrently running task (exec.slots_per_rank), made on first use. */
class TaskOutputPool {
public:
    TaskOutputPool() = default;
    /** Sweeps again what dead processes of this host left: those of a run that ended just
     * before this one may still have been exiting when the first acquire() looked. */
    ~TaskOutputPool();
    TaskOutputPool(const TaskOutputPool&) = delete;
    TaskOutputPool& operator=(const TaskOutputPool&) = delete;

    /**
     * Hands one out; give it back with release(). The first call also removes the scratch
     * files that killed processes of this host left in `tasks_dir`.
     */
    std::unique_ptr<TaskOutput> acquire(const std::string& tasks_dir, const std::string& host);
    void release(std::unique_ptr<TaskOutput> output);

private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<TaskOutput>> free_;
    int made_ = 0;
    std::string tasks_dir_, host_;  ///< of the first acquire(), for the sweep at the end
};

}  // namespace shardrun::process
