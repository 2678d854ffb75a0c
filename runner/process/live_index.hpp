#pragma once

#include <cstdint>
#include <optional>
#include <string>

/**
 * @file
 * @internal Which live files a running task writes into. A task's output goes to its slot's
 * hidden scratch files (task_output.hpp), named by host, process and slot, not by task; so
 * while a task runs its process keeps a small index file in <output>.tasks/ named by task id
 * (and group member), written atomically (temp file, rename), that names those files.
 * `shardrun logs` reads it on any node that sees the output directory.
 */
namespace shardrun::process {

/** What the index of a running task says. */
struct LiveEntry {
    std::string stdout_path;  ///< the slot's scratch stdout (absolute or as the run named it)
    std::string stderr_path;
    int attempt = 1;          ///< the attempt running; its output is kept as stdout.<attempt>
    std::string host;
};

/** The index of a task while it runs: written when made, removed when destroyed. */
class LiveIndex {
public:
    /** Writes the index; a failure to write it only loses `logs --follow` of this task. */
    LiveIndex(std::string path, const LiveEntry& entry);
    ~LiveIndex() { remove(); }
    LiveIndex(const LiveIndex&) = delete;
    LiveIndex& operator=(const LiveIndex&) = delete;
    /** Removes the index now (after the output was kept, so a reader finds it kept). */
    void remove();

private:
    std::string path_;
};

/** The index at `path`, or nothing when the task is not running (no file, or an unreadable one). */
std::optional<LiveEntry> read_live_index(const std::string& path);

}  // namespace shardrun::process
