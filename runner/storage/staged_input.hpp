#pragma once

#include <functional>
#include <string>

#include "runner/job/remote_path.hpp"

namespace shardrun::storage {

/**
 * data.input in object storage ("s3://bucket/in/data.h5:/images"): the file is downloaded once per
 * node into <scratch>/shardrun-input/<16 hex digits of the URL's SHA-256>/<name>, and every rank
 * reads that copy. The ranks of a node take turns on a lock file there; the first of a run
 * downloads (rclone skips a copy whose size and time match the object's), the others of the
 * same run (PMIX_NAMESPACE, or SLURM_JOB_ID.SLURM_STEP_ID) find it done and make no call.
 * @return the same input with the local file: "<scratch>/.../data.h5:/images"
 * @throws UsageError  for a malformed URL; TransferError when the object cannot be downloaded
 */
std::string stage_input(const std::string& input);

/**
 * The object `remote` downloaded as stage_input does, whole (a line or Parquet input).
 * @param after_download  called with the local copy's path after each download, under the node's
 *                        lock (what is built from the copy once per node: a line input's index)
 * @return the local copy's path
 */
std::string stage_object(const RemotePath& remote, const std::function<void(const std::string&)>& after_download = {});

}  // namespace shardrun::storage
