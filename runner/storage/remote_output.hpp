#pragma once

#include <functional>
#include <memory>
#include <string>

#include "runner/job/remote_path.hpp"
#include "runner/storage/checkpoint_sync.hpp"
#include "runner/storage/folder_changes.hpp"
#include "runner/storage/segment_uploader.hpp"
#include "runner/storage/task_log_upload.hpp"
#include "runner/storage/writer_claim.hpp"

namespace shardrun::storage {

/** Where this rank stands in the run: what the remote output's steps depend on. */
struct RemoteRank {
    int array_index = 0;
    int rank = 0;            ///< world rank
    bool node_leader = false;  ///< the lowest rank of its node: fetches for the node
    bool several_nodes = false;
    int array_count = 1;
};

/**
 * A run's output in object storage (output.path s3://, gs://, rclone://), seen from one rank.
 * io/ writes a local mirror of the output in the node's scratch folder exactly as it writes a
 * local output; this class keeps the bucket the truth:
 *
 *   set_writer(), take_claim()  every rank, first: the run's id; rank 0 claims the element
 *   fetch()          node leaders, once the element is this run's: the mirror of this element :=
 *                    the bucket's (a rerun on a fresh machine resumes from it); rank 0 also fetches the master
 *   publish_start()  rank 0, after io::prepare_output: the manifest and params.h5 go up (--force:
 *                    the element's objects and the master are deleted first)
 *   start_uploads()  every rank, once its sink is open: the background SegmentUploader and TaskLogUploader
 *   flush_uploads()  every rank, once its sink is closed (end of run, drain): all committed segments up,
 *                    then the failed attempts' logs
 *   before_finalize / after_finalize  rank 0 around io::finalize_output: the other nodes'
 *                    segments come down; the master, the manifest and the removals go up, in order
 *
 * One writer per element: rank 0 takes the element's WriterClaim before the fetch, so what it
 * reads is not stale after a wait for another run, and before it writes anything; every rank checks it before each upload (AWS Batch and Google Cloud Batch run
 * an index once at a time, but a user's second submission or a frozen container can still make
 * two). The mirror's own lock guards one node.
 */
class RemoteOutput {
public:
    RemoteOutput(RemotePath remote, RemoteRank rank);
    ~RemoteOutput();

    const RemotePath& remote() const noexcept { return remote_; }
    /** The output.path io/ writes: the mirror on this node. */
    const std::string& local_path() const noexcept { return local_; }

    /**
     * Before fetch(): the tasks' checkpoint folders are kept in the bucket (CheckpointSync), synced
     * every `period_seconds` (0: only at the end of the run) and restored by fetch() on --resume.
     */
    void keep_checkpoints(double period_seconds) noexcept { checkpoint_period_ = period_seconds; }
    /** Every rank, first: the run as rank 0 made it (new_writer_run()). */
    void set_writer(const WriterRun& run);
    /** Rank 0, next: the element's claim (WriterClaim::take(): exit 2 while another run holds it). */
    void take_claim();
    /**
     * Any rank ending the run on an error (a full scratch disk): the element's claim keeps
     * `reason` (the mirror's paths named by the URL), for `status` and the next --resume
     * (WriterClaim::keep_end). Best effort.
     */
    void keep_end_reason(const std::string& reason);
    /** Node leaders, after take_claim(). */
    void fetch(bool resume, bool force);
    void publish_start(bool force);
    /** Rank 0: the element's own files (element.json, params.h5) go up again: a drained run's `stopped` mark. */
    void publish_element_files();
    /** @param on_taken  called once when another run took the element's claim: stops this run */
    void start_uploads(std::function<void()> on_taken);
    /** Every committed segment up, or what is not, after SHARDRUN_UPLOAD_PATIENCE of an outage. */
    UploadOutcome flush_uploads();
    /** Rank 0, at the end of a run whose commits are all in the bucket: its retry may start at once. */
    void release_claim();
    /**
     * Rank 0, with --force on an output of one element: the task logs an earlier run left in the
     * bucket (<name>.tasks/) go, as io/ removes the local <name>.tasks/, so none is shown for this run's tasks.
     */
    void delete_task_logs();
    /** This rank's task logs (between start_uploads and flush_uploads; else nullptr). */
    TaskLogUploader* task_logs() noexcept { return logs_.get(); }
    void before_finalize();
    void after_finalize();
    /** `message` with the mirror's path replaced by the URL: what io/ says, in the user's words. */
    std::string named(const std::string& message) const;

private:
    std::string mirror_root() const;
    std::vector<std::string> element_entries() const;

    RemotePath remote_;
    RemoteRank rank_;
    std::string local_;
    std::unique_ptr<WriterClaim> claim_;
    std::unique_ptr<SegmentUploader> uploader_;
    std::unique_ptr<TaskLogUploader> logs_;
    double checkpoint_period_ = -1;  ///< negative: the tasks keep no checkpoints in the bucket
    std::unique_ptr<CheckpointSync> checkpoints_;  ///< node leaders, between start_uploads and flush_uploads
    FolderState before_;
};

/**
 * For an output.path in object storage: the run's RemoteOutput, not fetched yet (fetch(), once the
 * element is this run's: set_writer, take_claim); io/ writes its local_path(), the mirror. nullptr
 * for a local one.
 */
std::unique_ptr<RemoteOutput> open_remote_output(const std::string& output_path, const RemoteRank& rank);

}  // namespace shardrun::storage
