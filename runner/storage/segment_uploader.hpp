#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runner/core/periodic_thread.hpp"
#include "runner/storage/writer_claim.hpp"

namespace shardrun::storage {

/** What one rank's uploads left undone at the end: nothing, an outage's leftovers, or another writer. */
struct UploadOutcome {
    /// committed tasks whose segments the bucket did not confirm (a PUT it took but never answered
    /// may have landed: the retry finds such a task done and does not run it again)
    std::vector<std::uint64_t> missing;
    std::string since;                   ///< when the bucket stopped answering (UTC), when missing is not empty
    std::string cause;                   ///< rclone's line about it
    std::string taken_by;                ///< not empty: another run took the element's claim (exit 2)
};

/**
 * One rank's uploads: a background thread that, every `period`, puts the segments this rank
 * committed since its last call into the bucket, all of them in one rclone call (one object
 * each). One rclone call costs 0.1-0.5 s here (process start, TLS, a PUT per file), far more
 * than a commit (a file and two fsyncs), so commits are batched instead of uploaded one by one.
 * A segment is committed in the bucket once its object is there: a kill -9 loses at most the
 * segments of the last period, which were never in the bucket, and a rerun runs their tasks again.
 *
 * Before each upload the element's claim is read (WriterClaim): a claim of another run stops
 * the uploads for good (on_taken), and a read without an answer within seconds is how an
 * outage is noticed. An outage is said on stderr at once ("the bucket is unreachable since
 * ...; N committed tasks not yet uploaded; retrying"), again every minute, and when it ends;
 * the uploads are retried with backoff (2, 4, ... 30 s). rclone's own retries are off for these
 * calls: this class retries.
 */
class SegmentUploader {
public:
    struct Settings {
        std::string local_dir;   ///< the rank's folder in the node's mirror (<mirror>.shards/a<i>/r<rank>)
        std::string remote_dir;  ///< its place in the bucket (rclone address)
        double period_seconds = 2;
        double patience_seconds = 300;  ///< how long flush() retries an unreachable bucket
        int rank = 0;
        WriterClaim* claim = nullptr;   ///< read before each upload; nullptr: none
        bool heartbeat = false;         ///< this rank (rank 0) keeps the claim's heartbeat
        std::function<void()> on_taken;  ///< called once when another run took the claim (stops the run)
    };

    /** Segments already in local_dir count as uploaded: they were downloaded from the bucket. */
    explicit SegmentUploader(Settings settings);
    ~SegmentUploader();
    SegmentUploader(const SegmentUploader&) = delete;
    SegmentUploader& operator=(const SegmentUploader&) = delete;

    /**
     * Stops the thread and uploads every segment committed so far; returns once they are in the
     * bucket, or once the bucket has been unreachable for patience_seconds (tried at least once
     * more): then with the tasks that are not in it, after saying so on stderr. Called at the end
     * of a run and on a drain, before exit 3.
     */
    UploadOutcome flush();

private:
    /** One try: the claim, the heartbeat, the new segments. True when nothing is left to upload. */
    bool try_upload(bool final);
    void note_failure(const std::string& cause, const std::vector<std::string>& names);
    /** The task ids of the committed segments `names` (read once each). */
    std::vector<std::uint64_t> tasks_of(const std::vector<std::string>& names);
    std::vector<std::string> new_segments() const;

    Settings settings_;
    std::mutex mutex_;  // one try at a time: the thread's or flush()'s
    std::set<std::string> uploaded_;
    std::map<std::string, std::vector<std::uint64_t>> tasks_;  // segment name -> its task ids
    std::string taken_by_;
    // The outage under way: when it began (steady seconds; 0: none), as a UTC time, and its cause.
    double outage_since_ = 0;
    std::string outage_since_text_;
    std::string outage_cause_;
    double last_said_ = 0;
    int failures_ = 0;      // tries failed in a row
    double next_try_ = 0;   // steady seconds: backoff
    std::unique_ptr<core::PeriodicThread> thread_;
};

/** The period of the background uploads: $SHARDRUN_UPLOAD_INTERVAL seconds, default 2. */
double upload_period_seconds();

/** How long the end of a run retries an unreachable bucket: $SHARDRUN_UPLOAD_PATIENCE seconds, default 300. */
double upload_patience_seconds();

/** "3, 5-7": task ids, sorted, as ranges. */
std::string id_ranges(std::vector<std::uint64_t> ids);

}  // namespace shardrun::storage
