#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

/**
 * @file
 * @internal What a slot's running index says (<tasks_dir>/.scratch-<slot>.running, one file per
 * slot for the slot's whole life, not one per task): which task and attempt the slot runs now,
 * and the live files its output goes to. The runner rewrites it in place for every task
 * (runner/process/live_index.hpp); `shardrun logs` and `status` read it.
 *
 * The text is "task=<id>\nmember=..\nattempt=..\nhost=..\nstdout=..\nstderr=..\nend=<id>\n".
 * A slot between tasks has '#' for its first byte. Bytes after the end line are what a longer
 * earlier entry left; a read that does not end in an end line naming the same task is torn.
 */
namespace shardrun::io::layout {

/** A running task, as its slot's index says. */
struct RunningEntry {
    std::uint64_t task = 0;
    int member = 0;           ///< the task's group member this slot runs (0: the leader)
    std::string stdout_path;  ///< the slot's scratch stdout (absolute or as the run named it)
    std::string stderr_path;
    int attempt = 1;          ///< the attempt running; its output is kept as stdout.<attempt>
    std::string host;
};

/** The index's text for `entry`, its first byte '#' (not running yet; see format above). */
std::string format_running(const RunningEntry& entry);

/** What `text` says runs; nothing for a slot between tasks or a torn read. */
std::optional<RunningEntry> parse_running(const std::string& text);

/** The entry of the index at `path`; nothing when the file is missing, between tasks or torn. */
std::optional<RunningEntry> read_running_index(const std::filesystem::path& path);

/** Every running entry among the slot indexes in `tasks_dir`. */
std::vector<RunningEntry> running_entries(const std::filesystem::path& tasks_dir);

/** The entry of member `member` of task `task` in `tasks_dir`, when a slot runs it. */
std::optional<RunningEntry> find_running(const std::filesystem::path& tasks_dir, std::uint64_t task, int member);

}  // namespace shardrun::io::layout
