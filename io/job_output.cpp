// The facade's per-run steps: committed_tasks, open_rank_sink, finalize_output.
#include "io/job_output.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "io/element_manifest.hpp"
#include "io/hdf5/handle.hpp"
#include "io/master/master_file.hpp"
#include "io/output_layout.hpp"
#include "io/params_file.hpp"
#include "io/shards/shard_sink.hpp"
#include "io/single/single_sink.hpp"
#include "io/task_table.hpp"

namespace shardrun::io {
namespace {

TaskTable gather(const OutputOptions& options, const JobMetadata& metadata, bool verify_results)
{
    // Only this element's block: with one element that is the whole job, as the master needs.
    TaskTable table(metadata.first_task, std::min(metadata.end_task, metadata.task_count));
    table.verify_results = verify_results;
    table.gather_element(options.path, metadata.array_index, metadata.first_task, metadata.end_task);
    for (const auto& problem : table.problems) std::cerr << "shardrun: warning: " << problem << "\n";
    return table;
}

OutputSummary summarize(const TaskTable& table, std::uint64_t first, std::uint64_t end)
{
    OutputSummary summary;
    summary.ok = table.count(static_cast<std::int8_t>(TaskStatus::ok), first, end);
    summary.failed = table.count(static_cast<std::int8_t>(TaskStatus::failed), first, end);
    summary.skipped = table.count(static_cast<std::int8_t>(TaskStatus::skipped), first, end);
    summary.pending = (end - first) - summary.ok - summary.failed - summary.skipped;
    summary.complete = summary.pending == 0;
    return summary;
}

}  // namespace

std::vector<std::uint64_t> committed_tasks(const OutputOptions& options, const JobMetadata& metadata)
{
    const auto table = gather(options, metadata, true);
    // Set torn or corrupt segments aside (kept for inspection) so later scans and the
    // master never read them; their tasks run again.
    for (const auto& file : table.invalid_segments) {
        std::error_code error;
        std::filesystem::rename(file, file.string() + ".invalid", error);
        if (!error) std::cerr << "shardrun: moved " << file.string() << " aside to " << file.string() << ".invalid\n";
    }
    std::vector<std::uint64_t> ids;
    for (auto id = metadata.first_task; id < metadata.end_task && id < metadata.task_count; ++id) {
        if (table.rows.status[id - table.first_id] == static_cast<std::int8_t>(TaskStatus::ok)) ids.push_back(id);
    }
    return ids;
}

std::unique_ptr<ResultSink> open_rank_sink(const OutputOptions& options, const JobMetadata& metadata,
                                           const std::vector<FieldSpec>& fields, int rank, int world_size, MPI_Comm comm)
{
    if (options.layout == Layout::single) {
        if (comm == MPI_COMM_NULL) throw std::invalid_argument("open_rank_sink: layout single needs the run's communicator");
        return std::make_unique<single::SingleSink>(options, metadata, fields, comm);
    }
    return std::make_unique<shards::ShardSink>(options, metadata, fields, rank);
}

OutputSummary finalize_output(const OutputOptions& options, const JobMetadata& metadata,
                              const std::vector<FieldSpec>& fields, const std::vector<ParamColumn>& param_columns,
                              const TaskRanges& ranges, int world_size)
{
    auto table = gather(options, metadata, false);
    auto summary = summarize(table, metadata.first_task, metadata.end_task);
    write_params_file(layout::params_path(options.path, metadata.array_index), param_columns, ranges);

    auto manifest = read_manifest(options.path, metadata.array_index).value_or(ElementManifest{});
    if (manifest.created == 0) manifest.created = now_seconds();
    manifest.metadata = metadata;
    manifest.metadata.world_size = world_size;
    manifest.job_hash = job_hash(metadata);
    manifest.layout = options.layout;
    manifest.fields = fields;
    manifest.finished = now_seconds();

    if (metadata.array_count == 1) {
        const master::MasterInfo info{manifest.metadata, manifest.job_hash, options.layout, manifest.created,
                                      manifest.finished, summary.complete, fields,       param_columns,
                                      ranges};
        const auto known_problems = table.problems.size();
        if (options.layout == Layout::single) {
            master::finish_single(layout::single_path(options.path, metadata.array_index), options.path, info, table);
        } else {
            master::write_master(options.path, info, table);
        }
        // Copying verifies the results of large segments: a bad one leaves its tasks pending.
        for (auto i = known_problems; i < table.problems.size(); ++i) {
            std::cerr << "shardrun: warning: " << table.problems[i] << "\n";
        }
        summary = summarize(table, metadata.first_task, metadata.end_task);
        summary.master_written = true;
        summary.master_path = options.path;
    }
    manifest.complete = summary.complete;
    write_manifest(options.path, manifest);
    return summary;
}

int MergeReport::exit_code() const noexcept
{
    return missing_elements.empty() && incomplete_elements.empty() && summary.complete ? 0 : 1;
}

}  // namespace shardrun::io
