#pragma once

#include <string>

#include "io/layout/running_index.hpp"

/**
 * @file
 * @internal Which live files a running task writes into. A task's output goes to its slot's
 * hidden scratch files (task_output.hpp), named by host, process and slot, not by task; so the
 * slot keeps one more, its running index (io/layout/running_index.hpp), that names the task it
 * runs and those files. One file per slot, rewritten in place: starting a task costs two small
 * writes and ending it one, and no file is created, renamed or removed per task.
 * `shardrun logs` reads it on any node that sees the output directory.
 */
namespace shardrun::process {

using LiveEntry = io::layout::RunningEntry;

/** A slot's running index: made with the slot, removed with it. */
class LiveIndex {
public:
    /** Creates the index, between tasks; a failure to create it only loses `logs --follow` of the slot's tasks. */
    explicit LiveIndex(std::string path);
    ~LiveIndex();
    LiveIndex(const LiveIndex&) = delete;
    LiveIndex& operator=(const LiveIndex&) = delete;

    /** Says that `entry`'s task runs: the whole entry first, then its first byte, so a reader sees all of it or none. */
    void running(const LiveEntry& entry);
    /** Says that no task runs (after the output was kept, so a reader that finds none finds it kept). */
    void idle();

private:
    std::string path_;
    int fd_ = -1;
};

/** Marks a task running for its scope: idle again however the scope ends. */
class RunningMark {
public:
    RunningMark(LiveIndex& index, const LiveEntry& entry) : index_(&index) { index.running(entry); }
    ~RunningMark() { end(); }
    RunningMark(const RunningMark&) = delete;
    RunningMark& operator=(const RunningMark&) = delete;
    /** Idle now. */
    void end()
    {
        if (index_ != nullptr) index_->idle();
        index_ = nullptr;
    }

private:
    LiveIndex* index_;
};

}  // namespace shardrun::process
