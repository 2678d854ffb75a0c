#pragma once

#include <string>

namespace shardrun::cli {

/** The job file an output in object storage was written by, copied out so that a task can be run again by hand. */
struct BucketJob {
    std::string job_file;  ///< its text as the run read it (before --set), in the folder given
    std::string job_dir;   ///< the folder of the job file the run read: what its relative paths mean
};

/**
 * For `run s3://.../out.h5 --task ID`: the job recorded in the output at `url` (an element's
 * manifest, else the master's attributes) written into `folder` under its own file name. Only
 * the manifests are downloaded (the master only when there is none); the bucket is only read.
 * @throws io::OutputError (exit 2) when the bucket holds no shardrun output there; TransferError
 */
BucketJob job_from_bucket(const std::string& url, const std::string& folder);

}  // namespace shardrun::cli
