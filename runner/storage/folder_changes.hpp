#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shardrun::storage {

/** What identifies one version of a file: a rewrite by temp and rename gets a new inode. */
struct FileStamp {
    std::uintmax_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint64_t inode = 0;
    bool operator==(const FileStamp&) const = default;
};

/** Regular files by path relative to a root; locks and temporaries left out (never uploaded). */
using FolderState = std::map<std::string, FileStamp>;

/**
 * The files of `root` named `entries` (relative paths: a file, or a folder taken recursively),
 * e.g. {"run.h5", "run.h5.shards/a0"}. Missing entries are simply absent.
 */
FolderState folder_state(const std::string& root, const std::vector<std::string>& entries);

/**
 * Publishes to `remote_root` what changed in `root` between `before` and `after`, in the order
 * that keeps the bucket valid at every instant (a kill between two steps leaves what a kill
 * between the same two steps leaves on a local disk):
 *   1. new or rewritten files other than manifests: the master, segments, params.h5;
 *   2. manifests (element.json), which may say the element is finished or consolidated;
 *   3. removed files (what consolidation deleted once the master held its rows).
 * @throws TransferError
 */
void publish_changes(const std::string& root, const std::string& remote_root, const FolderState& before,
                     const FolderState& after);

}  // namespace shardrun::storage
