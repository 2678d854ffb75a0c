#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "runner/core/periodic_thread.hpp"

namespace shardrun::storage {

/**
 * One rank's uploads: a background thread that, every `period`, puts the segments this rank
 * committed since its last call into the bucket, all of them in one rclone call (one object
 * each). One rclone call costs 0.1-0.5 s here (process start, TLS, a PUT per file), far more
 * than a commit (a file and two fsyncs), so commits are batched instead of uploaded one by one.
 * A segment is committed in the bucket once its object is there: a kill -9 loses at most the
 * segments of the last period, which were never in the bucket, and a rerun runs their tasks again.
 */
class SegmentUploader {
public:
    /**
     * @param local_dir   the rank's folder in the node's mirror (<mirror>.shards/a<i>/r<rank>)
     * @param remote_dir  its place in the bucket (rclone address)
     * Segments already in local_dir count as uploaded: they were downloaded from the bucket.
     */
    SegmentUploader(std::string local_dir, std::string remote_dir, double period_seconds);
    ~SegmentUploader();
    SegmentUploader(const SegmentUploader&) = delete;
    SegmentUploader& operator=(const SegmentUploader&) = delete;

    /**
     * Stops the thread and uploads every segment committed so far; returns once they are in the
     * bucket. Called at the end of a run and on a drain, before exit 3.
     * @throws TransferError  when this last upload fails
     */
    void flush();

private:
    /** Uploads what is new; false when it failed (error_ says why). */
    bool upload_new();

    std::string local_dir_;
    std::string remote_dir_;
    std::mutex mutex_;  // one upload at a time: the thread's or flush()'s
    std::set<std::string> uploaded_;
    std::string error_;
    std::unique_ptr<core::PeriodicThread> thread_;
};

/** The period of the background uploads: $SHARDRUN_UPLOAD_INTERVAL seconds, default 2. */
double upload_period_seconds();

}  // namespace shardrun::storage
