// LiveSnapshot: the committed rows of a running job, as a master file in a private temp folder.
#include "io/read/live_snapshot.hpp"

#include <stdlib.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>

#include "io/errors.hpp"
#include "io/gather/task_stream.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/element_match.hpp"
#include "io/layout/output_layout.hpp"
#include "io/master/master_file.hpp"
#include "io/params/file_param_source.hpp"
#include "io/shards/segment.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

using Manifests = std::vector<std::pair<int, ElementManifest>>;

/** A fresh folder of our own under $TMPDIR (mkdtemp: mode 0700, a name nobody else has). */
fs::path make_private_folder()
{
    std::error_code error;
    auto base = fs::temp_directory_path(error);
    if (error) base = "/tmp";
    std::string name = (base / "shardrun-live-XXXXXX").string();
    if (!::mkdtemp(name.data())) {
        SHARDRUN_THROW(OutputError, "cannot create a folder for the snapshot of a running job under " + base.string() +
                                    "; set TMPDIR to a writable folder");
    }
    return name;
}

/**
 * /params of the job: the params.h5 a run writes when it starts (any element's: they are the
 * job's whole columns), else the master of a consolidated element; none when neither is there.
 */
std::unique_ptr<FileParamSource> param_source(const std::string& path, const Manifests& manifests)
{
    const auto& reference = manifests.front().second.metadata;
    std::vector<fs::path> candidates;
    for (const auto& [index, manifest] : manifests) candidates.push_back(layout::params_path(path, index));
    candidates.emplace_back(path);
    for (const auto& file : candidates) {
        if (!fs::exists(file)) continue;
        try {
            auto source = std::make_unique<FileParamSource>(file, reference.param_names);
            if (source->task_count() == reference.task_count) return source;
        } catch (const OutputError&) {
            // Gone between the look and the open (a finishing run replaces it): try the next one.
        }
    }
    return nullptr;
}

/** The job's fields a reader of `kind` needs, as indexes into `fields`. */
std::vector<std::size_t> wanted_fields(const std::vector<FieldSpec>& fields, SnapshotFields kind)
{
    std::vector<std::size_t> kept;
    for (std::size_t f = 0; f < fields.size(); ++f) {
        if (kind == SnapshotFields::all || (kind == SnapshotFields::scalar && fields[f].shape.empty())) kept.push_back(f);
    }
    return kept;
}

/**
 * The job's result fields: a manifest's (written when an element finishes a run), else those a
 * committed segment declares (a first run's manifest has none yet); none before the first commit.
 */
std::vector<FieldSpec> job_fields(const std::string& path, const Manifests& manifests)
{
    for (const auto& [index, manifest] : manifests) {
        if (!manifest.fields.empty()) return manifest.fields;
    }
    for (const auto& [index, manifest] : manifests) {
        for (const int rank : layout::rank_indexes(path, index)) {
            for (const auto& file : layout::segments(layout::rank_dir(path, index, rank))) {
                if (auto segment = shards::read_segment(file, nullptr, {.results = false})) return segment->fields;
            }
        }
    }
    return {};
}

master::MasterInfo snapshot_info(const std::string& path, const Manifests& manifests)
{
    const auto& reference = manifests.front().second;
    master::MasterInfo info;
    info.metadata = reference.metadata;
    if (info.metadata.array_count > 1) info.metadata.array_index = -1;  // it covers every element, as merge's
    info.hash = reference.job_hash;
    info.layout = reference.layout;
    info.created = reference.created;
    info.finished = now_seconds();
    info.complete = false;
    info.fields = job_fields(path, manifests);
    for (const auto& [index, manifest] : manifests) {
        if (manifest.created > 0) info.created = std::min(info.created, manifest.created);
    }
    return info;
}

/** One pass over the committed rows into `file`; the stream's problems (a segment gone meanwhile) go to `problems`. */
StatusCounts write_snapshot(const std::string& path, const Manifests& manifests, SnapshotFields kind,
                            const fs::path& file, std::vector<std::string>& problems)
{
    auto info = snapshot_info(path, manifests);
    const auto params = param_source(path, manifests);
    info.param_source = params.get();
    const auto kept = wanted_fields(info.fields, kind);
    TaskStream stream(0, info.metadata.task_count, info.fields,
                      kept.empty() ? TaskStream::Reads::rows_only : TaskStream::Reads::with_results);
    stream.select_fields(kept);
    for (const auto& [index, manifest] : manifests) {
        const auto& m = manifest.metadata;
        add_element_rows(stream, path, index, manifest.consolidated, m.first_task, m.end_task);
        // A finished single-layout job of one element was renamed to the output itself.
        if (manifest.layout == Layout::single && !fs::exists(layout::single_path(path, index)) && fs::exists(path)) {
            stream.add_single(path, m.first_task, m.end_task);
        }
    }
    std::vector<FieldSpec> written;
    for (const auto f : kept) written.push_back(info.fields[f]);
    info.fields = written;
    const auto counts = master::write_master_streamed(file, info, stream, "set TMPDIR to a folder with free space");
    problems = stream.problems();
    return counts;
}

}  // namespace

std::string running_line(std::uint64_t committed, std::uint64_t task_count)
{
    return "running: " + std::to_string(committed) + " of " + std::to_string(task_count) + " committed";
}

std::string LiveSnapshot::note() const
{
    if (stopped_ && committed_ == task_count_) {
        // Nothing is left to run: what is missing is the file (a full disk refused it).
        return "shardrun: stopped: " + std::to_string(committed_) + " of " + std::to_string(task_count_) +
               " committed (every task, but its run ended before it wrote the results file; "
               "`shardrun run JOB --resume` writes it)";
    }
    if (stopped_) {
        return "shardrun: stopped: " + std::to_string(committed_) + " of " + std::to_string(task_count_) +
               " committed (its run ended before it finished, without writing the results file; "
               "`shardrun run JOB --resume` runs the rest)";
    }
    return "shardrun: " + running_line(committed_, task_count_) + " (a snapshot; the run goes on)";
}

std::string single_running_reason(const std::string& path, int array_index)
{
    return path + ": array element " + std::to_string(array_index) +
           " is running with output.layout single, whose one file (" + layout::single_path(path, array_index).string() +
           ") is open in the run's parallel writer and committed only when the run ends; HDF5 1.10 gives no "
           "consistent view of a file open for writing, so it is not read before then: wait for the run to end, or "
           "use output.layout shards to look at results while a job runs";
}

LiveSnapshot::~LiveSnapshot()
{
    if (folder_.empty()) return;
    std::error_code error;
    fs::remove_all(folder_, error);
}

LiveSnapshot::LiveSnapshot(LiveSnapshot&& other) noexcept
    : folder_(std::move(other.folder_)), file_(std::move(other.file_)), committed_(other.committed_),
      task_count_(other.task_count_), stopped_(other.stopped_)
{
    other.folder_.clear();
}

LiveSnapshot LiveSnapshot::write(const std::string& path, const Manifests& manifests, SnapshotFields fields, int attempt,
                                 bool& retry)
{
    constexpr int tries = 3;
    retry = false;
    if (manifests.empty()) SHARDRUN_THROW(OutputError, path + " has no readable array element in " + layout::shards_dir(path).string());
    if (const auto mismatches = mismatched_elements(manifests); !mismatches.empty()) {
        SHARDRUN_THROW(OutputError, path + ": " + describe(mismatches) + "; its results are not read");
    }
    LiveSnapshot snapshot;
    snapshot.folder_ = make_private_folder();
    snapshot.file_ = snapshot.folder_ / fs::path(path).filename();
    std::vector<std::string> problems;
    const auto counts = write_snapshot(path, manifests, fields, snapshot.file_, problems);
    snapshot.committed_ = counts.ok + counts.failed + counts.skipped;
    snapshot.task_count_ = manifests.front().second.metadata.task_count;
    if (!problems.empty() && attempt < tries) {
        retry = true;  // the caller takes another; `snapshot` removes its folder
    } else {
        for (const auto& problem : problems) std::cerr << "shardrun: warning: " << problem << "\n";
    }
    return snapshot;
}

std::optional<LiveSnapshot> LiveSnapshot::take(const std::string& path, SnapshotFields fields)
{
    // A few tries: the run may finish while we read and remove segments we listed (consolidation).
    for (int attempt = 1;; ++attempt) {
        const auto indexes = layout::element_indexes(path);
        std::vector<int> running;
        for (const int index : indexes) {
            if (layout::lock_held(path, index)) running.push_back(index);
        }
        if (running.empty()) return std::nullopt;
        const auto manifests = read_element_manifests(path);
        for (const auto& [index, manifest] : manifests) {
            const bool runs = std::find(running.begin(), running.end(), index) != running.end();
            if (runs && manifest.layout == Layout::single) SHARDRUN_THROW(OutputError, single_running_reason(path, index));
        }
        bool retry = false;
        auto snapshot = write(path, manifests, fields, attempt, retry);
        if (!retry) return snapshot;
    }
}

namespace {

/** The manifest of `path`'s one element when it is a stopped one-element job (stopped_single_element()). */
std::optional<Manifests> stopped_single_manifests(const std::string& path)
{
    if (fs::exists(path)) return std::nullopt;
    const auto indexes = layout::element_indexes(path);
    if (indexes.size() != 1 || layout::lock_held(path, indexes.front())) return std::nullopt;
    auto manifests = read_element_manifests(path);
    if (manifests.size() != 1 || manifests.front().second.metadata.array_count != 1) return std::nullopt;
    return manifests;
}

}  // namespace

bool stopped_single_element(const std::string& path) { return stopped_single_manifests(path).has_value(); }

std::optional<LiveSnapshot> LiveSnapshot::take_stopped(const std::string& path, SnapshotFields fields)
{
    const auto manifests = stopped_single_manifests(path);
    if (!manifests) return std::nullopt;
    bool retry = false;
    auto snapshot = write(path, *manifests, fields, 1, retry);  // nothing writes it: one pass reads it whole
    snapshot.stopped_ = true;
    return snapshot;
}

std::optional<LiveSnapshot> LiveSnapshot::take_committed(const std::string& path, SnapshotFields fields)
{
    if (auto live = take(path, fields)) return live;
    return take_stopped(path, fields);
}

}  // namespace shardrun::io
