#pragma once

#include <memory>
#include <string>

#include "runner/job/remote_path.hpp"
#include "runner/storage/folder_changes.hpp"

namespace shardrun::storage {

/**
 * What `status`, `table`, `export`, `report` and `merge` read of an output in object storage: the
 * master and every element's objects, downloaded into a private folder under the scratch folder
 * (removed with this object); the commands then run on it as on a local output. `merge` publishes
 * what it changed (publish()).
 */
class RemoteCopy {
public:
    /** @throws io::OutputError when the bucket holds no output there; TransferError */
    explicit RemoteCopy(RemotePath remote);
    ~RemoteCopy();
    RemoteCopy(const RemoteCopy&) = delete;
    RemoteCopy& operator=(const RemoteCopy&) = delete;

    const RemotePath& remote() const noexcept { return remote_; }
    const std::string& local_path() const noexcept { return local_; }

    /** `text` with the copy's path replaced by the URL. */
    std::string named(const std::string& text) const;

    /**
     * Takes the lock of every element whose manifest says it has not finished, as a run would:
     * the bucket cannot tell a running element from a stopped one, and `table`, `export` and
     * `report` then read what it committed (a live snapshot) instead of refusing an output without
     * a master.
     */
    void hold_unfinished();

    /** Uploads what changed since the download: the master, then manifests, then removals. */
    void publish();

private:
    RemotePath remote_;
    std::string dir_;
    std::string local_;
    FolderState before_;
    std::vector<int> locks_;  // descriptors of the locks hold_unfinished() took
};

/** For a command's output argument: nullptr for a local path, else its RemoteCopy with `path` set to the copy. */
std::unique_ptr<RemoteCopy> open_remote_copy(std::string& path);

/**
 * `text` with the path of every copy this process opened replaced by its URL, as
 * RemoteCopy::named() does: for a message thrown out of a command, whose copy is gone by the time
 * it is printed (a user cannot look in a private scratch folder).
 */
std::string named_by_remotes(const std::string& text);

}  // namespace shardrun::storage
