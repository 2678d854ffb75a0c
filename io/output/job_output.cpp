// The facade's per-run steps: committed_tasks, open_rank_sink, finalize_output.
#include "io/job_output.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "io/gather/task_stream.hpp"
#include "io/hdf5/handle.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/output_layout.hpp"
#include "io/master/master_file.hpp"
#include "io/output/consolidation.hpp"
#include "io/output/params_file.hpp"
#include "io/output/resume_scan.hpp"
#include "io/param_source.hpp"
#include "io/shards/shard_sink.hpp"
#include "io/single/single_finish.hpp"
#include "io/single/single_sink.hpp"

namespace shardrun::io {
namespace {

void warn(const std::vector<std::string>& problems)
{
    for (const auto& problem : problems) std::cerr << "shardrun: warning: " << problem << "\n";
}

OutputSummary summarize(const StatusCounts& counts)
{
    OutputSummary summary;
    summary.ok = counts.ok;
    summary.failed = counts.failed;
    summary.skipped = counts.skipped;
    summary.pending = counts.pending;
    summary.complete = summary.pending == 0;
    return summary;
}

bool is_consolidated(const OutputOptions& options, int array_index)
{
    const auto manifest = read_manifest(options.path, array_index);
    return manifest && manifest->consolidated;
}

void append_run(std::vector<IdRun>& runs, std::uint64_t id)
{
    if (!runs.empty() && runs.back().end == id) {
        ++runs.back().end;
    } else {
        runs.push_back(IdRun{id, id + 1});
    }
}

}  // namespace

std::vector<IdRun> committed_runs(const OutputOptions& options, const JobMetadata& metadata,
                                  std::vector<EarlierAttempts>* earlier, EarlierSpend* spend)
{
    const auto first = metadata.first_task;
    const auto end = std::max(first, std::min(metadata.end_task, metadata.task_count));
    if (const auto counts = current_master_counts(options, metadata); counts && counts->ok == metadata.task_count) {
        return first < end ? std::vector<IdRun>{IdRun{first, end}} : std::vector<IdRun>{};
    }
    TaskStream stream(first, end, {}, TaskStream::Reads::with_results);  // results too: nothing unverified is used
    add_element_rows(stream, options.path, metadata.array_index, is_consolidated(options, metadata.array_index), first,
                     end);
    std::vector<IdRun> runs;
    TaskRows block;
    while (stream.next(block)) {
        for (std::size_t i = 0; i < block.size(); ++i) {
            if (spend != nullptr && i < block.gpu.size()) {
                const auto& row = block.gpu[i];  // NaN (not measured, no price) adds nothing
                if (row.cost_usd == row.cost_usd) spend->usd += row.cost_usd;
                if (row.total_energy_j == row.total_energy_j) spend->joules += row.total_energy_j;
                if (row.has_energy_or_cost()) ++spend->tasks;
            }
            if (block.status[i] == static_cast<std::int8_t>(TaskStatus::ok)) {
                append_run(runs, block.task_id[i]);
            } else if (earlier != nullptr && block.attempts[i] > 0) {
                earlier->push_back({block.task_id[i], block.attempts[i]});
            }
        }
    }
    warn(stream.problems());
    // Set torn or corrupt segments aside (kept for inspection) so later scans and the
    // master never read them; their tasks run again.
    for (const auto& file : stream.invalid_segments()) {
        std::error_code error;
        std::filesystem::rename(file, file.string() + ".invalid", error);
        if (!error) std::cerr << "shardrun: moved " << file.string() << " aside to " << file.string() << ".invalid\n";
    }
    return runs;
}

std::vector<std::uint64_t> committed_tasks(const OutputOptions& options, const JobMetadata& metadata)
{
    std::vector<std::uint64_t> ids;
    for (const auto& run : committed_runs(options, metadata)) {
        for (auto id = run.first; id < run.end; ++id) ids.push_back(id);
    }
    return ids;
}

std::unique_ptr<ResultSink> open_rank_sink(const OutputOptions& options, const JobMetadata& metadata,
                                           const std::vector<FieldSpec>& fields, base::Communicator& comm)
{
    if (options.layout == Layout::single) return std::make_unique<single::SingleSink>(options, metadata, fields, comm);
    return std::make_unique<shards::ShardSink>(options, metadata, fields, comm.rank());
}

std::unique_ptr<ResultSink> open_rank_sink(const OutputOptions& options, const JobMetadata& metadata,
                                           const std::vector<FieldSpec>& fields, int rank, int /*world_size*/)
{
    if (options.layout == Layout::single) throw std::invalid_argument("open_rank_sink: layout single needs the run's communicator");
    return std::make_unique<shards::ShardSink>(options, metadata, fields, rank);
}

namespace {

/** Writes the master of a one-element job, unless the one there is already current; its counts. */
StatusCounts write_element_master(const OutputOptions& options, const JobMetadata& metadata, master::MasterInfo& info,
                                  bool consolidated)
{
    if (options.layout == Layout::single) {
        info.complete = true;  // finish_single_streamed() clears it when a task is left pending
        return single::finish_single_streamed(layout::single_path(options.path, metadata.array_index), options.path, info);
    }
    // A resume that committed nothing new (the job was already complete) keeps the master as it is.
    if (const auto counts = current_master_counts(options, metadata)) return *counts;
    info.complete = true;
    info.segments_digest = segments_digest(options.path, metadata.array_index);
    TaskStream stream(0, metadata.task_count, info.fields, TaskStream::Reads::with_results);  // copying verifies every segment's results
    // Read while its replacement is written beside it: the rename comes after the last block.
    add_element_rows(stream, options.path, metadata.array_index, consolidated, metadata.first_task, metadata.end_task);
    const auto counts = master::write_master_streamed(options.path, info, stream);
    warn(stream.problems());
    return counts;
}

}  // namespace

OutputSummary finalize_output(const OutputOptions& options, const JobMetadata& metadata,
                              const std::vector<FieldSpec>& fields, const std::vector<ParamColumn>& param_columns,
                              const TaskRanges& ranges, int world_size)
{
    return finalize_output(options, metadata, fields, ColumnsParamSource(param_columns, ranges), world_size);
}

void publish_params(const OutputOptions& options, const JobMetadata& metadata, const ParamSource& params)
{
    // A consolidated element's master holds them already: stored once (readers take the master's).
    if (const auto manifest = read_manifest(options.path, metadata.array_index); manifest && manifest->consolidated) return;
    write_params_file(layout::params_path(options.path, metadata.array_index), params);
}

void record_stopped_run(const OutputOptions& options, const JobMetadata& metadata)
{
    auto manifest = read_manifest(options.path, metadata.array_index);
    if (!manifest) return;
    manifest->stopped = now_seconds();
    write_manifest(options.path, *manifest);
}

OutputSummary finalize_output(const OutputOptions& options, const JobMetadata& metadata,
                              const std::vector<FieldSpec>& fields, const ParamSource& params, int world_size,
                              const std::vector<double>& rank_startup_seconds,
                              const std::vector<std::string>& quarantined, const std::vector<GpuCheckRow>& gpus)
{
    auto manifest = read_manifest(options.path, metadata.array_index).value_or(ElementManifest{});
    // For merge; once consolidated, the master holds the same columns. A run publishes it when
    // it starts (publish_params), so it is there already unless the caller skipped that.
    if (!manifest.consolidated && !std::filesystem::exists(layout::params_path(options.path, metadata.array_index))) {
        write_params_file(layout::params_path(options.path, metadata.array_index), params);
    }
    if (manifest.created == 0) manifest.created = now_seconds();
    manifest.metadata = metadata;
    manifest.metadata.world_size = world_size;
    manifest.job_hash = job_hash(metadata);
    manifest.layout = options.layout;
    manifest.fields = fields;
    manifest.finished = now_seconds();
    if (!rank_startup_seconds.empty()) manifest.rank_startup_seconds = rank_startup_seconds;
    manifest.quarantined = quarantined;  // this run's: a resumed run's GPUs are judged afresh
    manifest.gpus = gpus;

    OutputSummary summary;
    if (metadata.array_count == 1) {
        master::MasterInfo info{manifest.metadata, manifest.job_hash, options.layout, manifest.created,
                                manifest.finished, false, fields, {}, {}};
        info.param_source = &params;  // a block at a time: T values a column never held
        info.ranks = master::rank_rows(std::vector<std::pair<int, ElementManifest>>{{metadata.array_index, manifest}});
        info.quarantined = manifest.quarantined;
        info.gpus = manifest.gpus;
        const auto started = std::chrono::steady_clock::now();
        summary = summarize(write_element_master(options, metadata, info, manifest.consolidated));
        summary.master_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::error_code unknown;  // the size is reported, never needed
        const auto bytes = std::filesystem::file_size(options.path, unknown);
        summary.master_bytes = unknown ? 0 : bytes;
        summary.master_written = true;
        summary.master_path = options.path;
    } else {
        TaskStream stream(metadata.first_task, std::min(metadata.end_task, metadata.task_count), fields,
                          TaskStream::Reads::rows_only);
        add_element_rows(stream, options.path, metadata.array_index, manifest.consolidated, metadata.first_task,
                         metadata.end_task);
        summary = summarize(count_statuses(stream));
        warn(stream.problems());
    }
    manifest.complete = summary.complete;
    // The complete master is published: the element's results (and, with layout single, its
    // params.h5) need not be stored twice. The manifest says so durably before the first file goes.
    const bool drop = summary.master_written && summary.complete && !options.keep_shards;
    manifest.consolidated = manifest.consolidated || drop;
    write_manifest(options.path, manifest);
    if (drop) drop_element_rows(options.path, metadata.array_index);
    return summary;
}

int MergeReport::exit_code() const noexcept
{
    return missing_elements.empty() && incomplete_elements.empty() && summary.complete ? 0 : 1;
}

}  // namespace shardrun::io
