#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace shardrun::io::layout {

/** @internal Paths of an output, all derived from the master path (see io/README.md). */
std::filesystem::path shards_dir(const std::string& path);
std::filesystem::path element_dir(const std::string& path, int array_index);
std::filesystem::path lock_path(const std::string& path, int array_index);
std::filesystem::path manifest_path(const std::string& path, int array_index);
std::filesystem::path params_path(const std::string& path, int array_index);
std::filesystem::path single_path(const std::string& path, int array_index);
std::filesystem::path rank_dir(const std::string& path, int array_index, int rank);
/** <rank_dir>/<seq, 8 digits>.h5: names sort in commit order. */
std::filesystem::path segment_path(const std::filesystem::path& rank_dir, long seq);
/** <path>.tasks/<task_id>/stderr, where exec tasks keep their stderr. */
std::filesystem::path task_stderr_path(const std::string& path, unsigned long long task_id);

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
