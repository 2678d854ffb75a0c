#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace shardrun::io::layout {

/** @internal Paths of an output, all derived from the master path (see io/README.md). */
std::filesystem::path shards_dir(const std::string& path);
/** "a<index>", the name of an element's folder in shards_dir(); `index` may be a placeholder ("<index>"). */
std::string element_name(const std::string& index);
std::filesystem::path element_dir(const std::string& path, int array_index);
std::filesystem::path lock_path(const std::string& path, int array_index);
std::filesystem::path manifest_path(const std::string& path, int array_index);
std::filesystem::path params_path(const std::string& path, int array_index);
std::filesystem::path single_path(const std::string& path, int array_index);
std::filesystem::path rank_dir(const std::string& path, int array_index, int rank);
/** <rank_dir>/<seq, 8 digits>.h5: names sort in commit order. */
std::filesystem::path segment_path(const std::filesystem::path& rank_dir, long seq);
/** <path>.tasks: the exec tasks' folders (<task_id>/), written by the runner, read by status and logs. */
std::filesystem::path tasks_dir(const std::string& path);
/** <path>.tasks/<task_id>/stderr, where exec tasks keep their stderr. */
std::filesystem::path task_stderr_path(const std::string& path, unsigned long long task_id);
/**
 * <tasks_dir>/<task_id>/checkpoint: the task's checkpoint folder ($SHARDRUN_CHECKPOINT_DIR), the
 * same for every attempt, member and run of the task, removed once it succeeds.
 */
std::filesystem::path checkpoint_dir(const std::filesystem::path& tasks_dir, unsigned long long task_id);
/** <task_dir>/member<k>: where member k of a task's group keeps its output, inside the leader's folder. */
std::filesystem::path member_dir(const std::filesystem::path& task_dir, int member);
/** True for the name of a folder member_dir() makes. */
bool is_member_dir(const std::string& name);
/**
 * <tasks_dir>/.scratch-<slot>.running: the slot's running index (running_index.hpp), one file
 * for the slot's life rewritten in place per task, which `logs --follow` reads and a dead
 * rank's sweep removes with the slot's other scratch files.
 */
std::filesystem::path running_index_path(const std::filesystem::path& tasks_dir, const std::string& slot);
/** True for the name of a file running_index_path() makes. */
bool is_running_index(const std::string& name);
/** <tasks_dir>/.scratch-<slot>.<kind>: a running slot's scratch file or folder (stdout, stderr, results). */
std::filesystem::path scratch_path(const std::filesystem::path& tasks_dir, const std::string& slot, const std::string& kind);
/** ".scratch-<host>-": the start of every scratch name of `host`'s slots (slot names begin with the host). */
std::string scratch_prefix(const std::string& host);
/** <path>.submit: what `shardrun submit` writes beside an output, a folder per target. */
std::filesystem::path submit_dir(const std::string& path);

/** The index of an element folder's name ("a<N>": N), -1 for any other name. */
long element_index(const std::string& name);
/** Array indexes of the a<N> folders under <path>.shards/, sorted. */
std::vector<int> element_indexes(const std::string& path);
/** Ranks of the r<N> folders of an element, sorted. */
std::vector<int> rank_indexes(const std::string& path, int array_index);
/** Committed segments of a rank folder (<seq>.h5, not temporaries), in commit order. */
std::vector<std::filesystem::path> segments(const std::filesystem::path& rank_dir);

/** Parses "<prefix><digits>" into the number; -1 when `name` is not of that form. */
long parse_indexed(const std::string& name, char prefix);

/** True while a run holds the lock of element `array_index` (its process is alive). */
bool lock_held(const std::string& path, int array_index);
/** The line naming the lock's holder ("pid 4711 on node-a since ...") in its file `fd`; "" when none. */
std::string lock_holder(int fd);

/** fsync of a file or folder: makes a rename or a write durable. @return false on error */
bool sync_path(const std::filesystem::path& path);

/**
 * Removes whatever is at `path` (a stale temporary, or a symlink someone planted) without
 * following it, so that the caller's exclusive create makes a fresh file right there and
 * never writes through a link into another file. Directories are left alone (the create fails).
 */
void clear_for_create(const std::filesystem::path& path);

/**
 * Writes `text` to `target` durably: temp file, fsync, rename, fsync of the folder. On
 * failure the temp file is removed and throw_write_error() says why.
 */
void write_file_atomically(const std::filesystem::path& target, const std::string& text);

/**
 * Throws for a write that failed with `error_number`: "<what>: <strerror>; <then>". A full
 * disk, quota or I/O error is a WriteError (exit 1: the run's input was fine); anything else
 * (permissions, a missing folder) an OutputError (exit 2).
 */
[[noreturn]] void throw_write_error(const std::string& what, int error_number, const std::string& then);

}  // namespace shardrun::io::layout
