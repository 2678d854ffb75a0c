#pragma once

#include <optional>
#include <string>

/**
 * @file
 * Outputs and inputs in object storage (README, "Results in object storage"): which paths of a
 * job file are remote, and how rclone names them. Pure text, so the job parser checks them; the
 * rest of storage's vocabulary (namespace storage) is in runner/storage/. Where a node keeps its
 * copy of a remote output is runner/storage/local_mirror.hpp.
 */
namespace shardrun::storage {

/** A remote path as rclone addresses it. */
struct RemotePath {
    std::string url;     ///< as the user wrote it: s3://bucket/key, gs://bucket/key, rclone://REMOTE:path
    std::string rclone;  ///< rclone's address: ":s3:bucket/key", ":gcs:bucket/key", "REMOTE:path"
    std::string name;    ///< the last component (run.h5)
    std::string parent;  ///< rclone's address of the folder holding it (":s3:bucket/key-prefix", "REMOTE:")
};

/** True for s3://, gs:// and rclone:// paths. */
bool is_remote(const std::string& path);

/**
 * Parses a remote path. s3://BUCKET/KEY and gs://BUCKET/KEY use rclone's on-the-fly backends
 * (credentials and endpoints from the environment, see rclone.hpp); rclone://REMOTE:PATH names
 * any remote of the user's rclone configuration (Azure, B2, SFTP, ...).
 * @return nullopt when `path` is not remote
 * @throws UsageError  for a remote path without bucket or key ("s3://bucket" alone)
 */
std::optional<RemotePath> parse_remote(const std::string& path);

/** `remote` with `suffix` appended to its last component (".shards/a0/element.json"). */
RemotePath with_suffix(const RemotePath& remote, const std::string& suffix);

}  // namespace shardrun::storage
