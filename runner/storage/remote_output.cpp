#include "runner/storage/remote_output.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "io/layout/output_layout.hpp"
#include "runner/process/worker_log.hpp"
#include "runner/storage/claim_end.hpp"
#include "runner/storage/local_mirror.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/transfer_failure.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {
namespace {

/** "run.h5.shards/a3": the element's folder relative to the mirror root. */
std::string element_entry(const RemotePath& remote, int array_index)
{
    return io::layout::element_dir(remote.name, array_index).string();
}

}  // namespace

RemoteOutput::RemoteOutput(RemotePath remote, RemoteRank rank)
    : remote_(std::move(remote)), rank_(rank), local_(local_mirror(remote_))
{
}

RemoteOutput::~RemoteOutput() = default;

std::string RemoteOutput::mirror_root() const
{
    return fs::path(local_).parent_path().string();
}

std::vector<std::string> RemoteOutput::element_entries() const
{
    return {remote_.name, element_entry(remote_, rank_.array_index)};
}

void RemoteOutput::fetch(bool resume, bool force)
{
    if (!rank_.node_leader) return;
    const auto root = mirror_root();
    const auto element = element_entry(remote_, rank_.array_index);
    // What an earlier run left on this node may hold segments that never reached the bucket:
    // they were not committed there, so the mirror starts again from the bucket alone.
    std::error_code error;
    fs::remove_all(fs::path(root) / element, error);
    if (rank_.rank == 0) fs::remove(fs::path(root) / remote_.name, error);
    // Exec tasks' folders of an earlier run here: a new run (not a resume) would refuse to mix with them.
    if (!resume) fs::remove_all(fs::path(root) / io::layout::tasks_dir(remote_.name), error);
    fs::create_directories(root, error);
    if (error) SHARDRUN_THROW(TransferError, "cannot create " + root + ": " + error.message() + "; set SHARDRUN_SCRATCH to a writable folder", exit_bad_input);
    if (force) return;  // deleted in publish_start()
    std::vector<std::string> includes{exact_pattern(element) + "/**"};
    if (rank_.rank == 0) includes.push_back(exact_pattern(remote_.name));
    download(remote_.parent, root, includes);
    // The error that ended the last run, which its claim kept: the --resume banner says it.
    if (rank_.rank == 0 && claim_ && claim_->previous_claim()) {
        claim_end_to_lock(*claim_->previous_claim(), local_, rank_.array_index);
    }
    // The claim this run just took is the bucket's, not the output's: a first run's element folder
    // holding only it is no earlier output ("already exists").
    const auto element_dir = fs::path(root) / element;
    fs::remove(element_dir / writer_claim_name, error);
    if (fs::is_empty(element_dir, error)) fs::remove(element_dir, error);
    // What the tasks saved before a drain, a reclaim or a failed attempt on another machine.
    if (resume && checkpoint_period_ >= 0) {
        CheckpointSync::restore(root, remote_.parent, io::layout::tasks_dir(remote_.name).string());
    }
}

void RemoteOutput::set_writer(const WriterRun& run)
{
    const auto object = (io::layout::element_dir(remote_.rclone, rank_.array_index) / writer_claim_name).string();
    const auto element = rank_.array_count > 1 ? fmt::format("array element {} of {}", rank_.array_index, remote_.url)
                                               : remote_.url;
    claim_ = std::make_unique<WriterClaim>(object, element, run);
}

void RemoteOutput::take_claim()
{
    if (claim_) claim_->take();
}

void RemoteOutput::keep_end_reason(const std::string& reason)
{
    if (claim_) claim_->keep_end(named(reason));
}

void RemoteOutput::publish_start(bool force)
{
    if (force) {
        // io deleted the element and the master in the mirror (prepare_output): the bucket follows.
        const auto result = run_rclone({"purge", io::layout::element_dir(remote_.rclone, rank_.array_index).string()});
        if (!result.ok() && !result.not_found()) {
            SHARDRUN_THROW(TransferError,
                           transfer_failure("delete " + io::layout::element_dir(remote_.url, rank_.array_index).string() +
                                                " (--force)",
                                            result),
                           exit_task_failed, result.error);
        }
        delete_files(remote_.parent, {remote_.name});
        if (claim_) claim_->renew();  // the purge took this run's claim with the element's objects
    }
    // One call: the manifest says finished: false here, so its order against params.h5 does not matter.
    publish_element_files();
}

void RemoteOutput::delete_task_logs()
{
    const auto tasks = io::layout::tasks_dir(remote_.rclone).string();
    const auto result = run_rclone({"purge", tasks});
    if (!result.ok() && !result.not_found()) {
        SHARDRUN_THROW(TransferError, transfer_failure("delete " + io::layout::tasks_dir(remote_.url).string() + " (--force)", result),
                       exit_task_failed, result.error);
    }
}

void RemoteOutput::publish_element_files()
{
    // The element's own files (element.json, params.h5), not its segments: a rerun learns the job from them.
    const auto element = element_entry(remote_, rank_.array_index);
    std::vector<std::string> names;
    for (const auto& entry : folder_state(mirror_root(), {element})) {
        if (entry.first.find('/', element.size() + 1) == std::string::npos) names.push_back(entry.first);
    }
    upload_files(mirror_root(), remote_.parent, names);
}

void RemoteOutput::start_uploads(std::function<void()> on_taken)
{
    uploader_ = std::make_unique<SegmentUploader>(SegmentUploader::Settings{
        .local_dir = io::layout::rank_dir(local_, rank_.array_index, rank_.rank).string(),
        .remote_dir = io::layout::rank_dir(remote_.rclone, rank_.array_index, rank_.rank).string(),
        .period_seconds = upload_period_seconds(),
        .patience_seconds = upload_patience_seconds(),
        .rank = rank_.rank,
        .claim = claim_.get(),
        .heartbeat = rank_.rank == 0,
        .on_taken = std::move(on_taken)});
    const auto worker_log = process::worker_log_path(io::layout::tasks_dir(local_).string(), rank_.rank);
    logs_ = std::make_unique<TaskLogUploader>(mirror_root(), remote_.parent, worker_log, rank_.rank,
                                              upload_period_seconds());
    if (checkpoint_period_ >= 0 && rank_.node_leader) {
        checkpoints_ = std::make_unique<CheckpointSync>(mirror_root(), remote_.parent,
                                                        io::layout::tasks_dir(remote_.name).string(), checkpoint_period_);
    }
}

UploadOutcome RemoteOutput::flush_uploads()
{
    // Results first: a log that cannot go up is said, and does not hold the results back.
    UploadOutcome outcome;
    if (uploader_) outcome = uploader_->flush();
    uploader_.reset();
    // Logs go up only while the bucket answers and the element is still ours: after an outage
    // they would cost another rclone timeout, and after a take-over they are the other run's.
    if (logs_ && outcome.missing.empty() && outcome.taken_by.empty()) logs_->flush();
    logs_.reset();
    // The drained or stopped tasks' last checkpoints, for the run that goes on with them.
    if (checkpoints_ && outcome.missing.empty() && outcome.taken_by.empty()) checkpoints_->flush();
    checkpoints_.reset();
    return outcome;
}

void RemoteOutput::release_claim()
{
    if (claim_ && rank_.rank == 0) claim_->release();
}

void RemoteOutput::before_finalize()
{
    // Other nodes' segments are only in the bucket; this node's are already here (skipped).
    if (rank_.several_nodes) {
        download(remote_.parent, mirror_root(), {exact_pattern(element_entry(remote_, rank_.array_index)) + "/**"});
    }
    before_ = folder_state(mirror_root(), element_entries());
}

std::string RemoteOutput::named(const std::string& message) const
{
    std::string text = message;
    for (auto at = text.find(local_); at != std::string::npos; at = text.find(local_, at + remote_.url.size())) {
        text.replace(at, local_.size(), remote_.url);
    }
    return text;
}

void RemoteOutput::after_finalize()
{
    publish_changes(mirror_root(), remote_.parent, before_, folder_state(mirror_root(), element_entries()));
}

std::unique_ptr<RemoteOutput> open_remote_output(const std::string& output_path, const RemoteRank& rank)
{
    auto remote = parse_remote(output_path);
    if (!remote) return nullptr;
    return std::make_unique<RemoteOutput>(std::move(*remote), rank);
}

}  // namespace shardrun::storage
