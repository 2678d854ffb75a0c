#pragma once

#include <hdf5.h>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/errors.hpp"
#include "io/gather/task_stream.hpp"
#include "io/gather/task_table.hpp"
#include "io/gpu_check_row.hpp"
#include "io/output_spec.hpp"
#include "io/param_source.hpp"

namespace shardrun::io::master {

/** One row of /ranks: a rank of an array element and its exec workers' load. */
struct RankRow {
    int array_index = 0;
    int rank = 0;
    double startup_seconds = 0;
};

/** @internal Everything the master file states besides the task rows. */
struct MasterInfo {
    JobMetadata metadata;       ///< array_index -1 for a merged master
    std::string hash;
    Layout layout = Layout::shards;
    double created = 0;
    double finished = 0;
    bool complete = false;
    std::vector<FieldSpec> fields;
    std::vector<ParamColumn> params;
    TaskRanges ranges;
    /** When set, used instead of params and ranges: the columns a block at a time (param_source.hpp). */
    const ParamSource* param_source = nullptr;
    StatusCounts counts;          ///< root attributes tasks_ok, tasks_failed, tasks_skipped
    std::string segments_digest;  ///< resume_scan.hpp; empty: not recorded (merge, layout single)
    std::vector<RankRow> ranks;   ///< /ranks; empty: the group is left as it is (none in a new file)
    std::vector<std::string> quarantined;  ///< root attribute `quarantined`: GPUs taken out of the run (issue 26)
    std::vector<GpuCheckRow> gpus;         ///< /gpus: the GPUs' admission checks (issue 38); empty: none written
};

/** The /ranks rows of `manifests`' last finished runs, element by element. */
template <typename Manifests>
std::vector<RankRow> rank_rows(const Manifests& manifests)
{
    std::vector<RankRow> rows;
    for (const auto& [index, manifest] : manifests) {
        for (std::size_t r = 0; r < manifest.rank_startup_seconds.size(); ++r) {
            rows.push_back(RankRow{index, static_cast<int>(r), manifest.rank_startup_seconds[r]});
        }
    }
    return rows;
}

/**
 * /ranks: array_index, rank (int32) and startup_seconds (float64), one row per rank of each
 * element's last finished run, on the bare dimension `row`; replaces a /ranks already there.
 */
void write_ranks(hid_t file, const std::vector<RankRow>& rows);

/**
 * /gpus: one row per GPU admission check (io/gpu_check_row.hpp's members as columns; admitted
 * int8 0/1) on the bare dimension `gpu`; replaces a /gpus already there.
 */
void write_gpus(hid_t file, const std::vector<GpuCheckRow>& rows);

/** Root attributes: provenance, versions, sizes, `complete`. */
void write_root_attrs(hid_t file, const MasterInfo& info);
/** Root attributes `scheduler`, `scheduler_ids` (the names) and one per id, named as its variable. */
void write_scheduler_attrs(hid_t file, const JobMetadata& metadata);
/** /tasks/<column>, length T. */
void write_task_columns(hid_t file, const TaskRows& rows);
/** CF `units` of /tasks/start and end (seconds since the epoch), so xarray decodes them. */
void write_time_units(hid_t file);
/** /params/<name> and /ranges/{start,end}, a block of rows at a time; each skipped when it exists. */
void write_params(hid_t file, const ParamSource& source);
/** write_params() of info's param_source when set, else of its columns. */
void write_params(hid_t file, const MasterInfo& info);
/**
 * /results/<field> [T, ...] (contiguous, fill value recorded, never filled) with `units`.
 * With `row_chunks` (a master, not a single file), fields with large rows are stored a chunk
 * per row instead (hdf5/row_chunks.hpp): copied from segments by H5Dwrite_chunk, never filled.
 */
void create_result_datasets(hid_t file, const std::vector<FieldSpec>& fields, std::uint64_t task_count,
                            bool row_chunks = false);
/**
 * netCDF-4 dimensions (io/README.md, "What xarray sees"): the coordinate /task (ids 0..T-1)
 * labels axis 0 of every dataset of /results, /params, /ranges and /tasks; axis k >= 1 of
 * a dataset `x` is the bare dimension `x_dim<k-1>` of its group. Adds CF's `_FillValue`
 * to /results datasets and lists /params as coordinates. Idempotent (a resumed finish).
 */
void write_dimensions(hid_t file, std::uint64_t task_count);

/**
 * Copies the winning rows of `table` into /results/<field> and writes the fill value into
 * rows that have no result. A segment whose results fail their CRC now is dropped: its
 * rows become pending (table is updated) and get the fill value.
 */
void copy_results(hid_t file, const std::vector<FieldSpec>& fields, TaskTable& table);

/**
 * Writes a consolidated master to `target` (temp name, fsync, rename) from a whole-job table:
 * T rows in memory. The reference the streamed master is compared with (io_master_stream_test).
 */
void write_master(const std::filesystem::path& target, const MasterInfo& info, TaskTable& table);

/** How a run whose master could not be written goes on (merge says "rerun shardrun merge"). */
inline constexpr std::string_view retry_run = "rerun with --resume";

/**
 * fsyncs `temp`, renames it to `target` and fsyncs the folder; on failure removes `temp`.
 * @throws WriteError (full disk, I/O error) or OutputError (permissions), ending with `retry`
 */
void publish(const std::filesystem::path& temp, const std::filesystem::path& target,
             std::string_view retry = retry_run);

/** The message of a master that could not be written: `what`, the system's reason, what to do. */
std::string write_failed_message(const std::string& what, const Hdf5Error& error, std::string_view retry = retry_run);

/**
 * Creates `target`.tmp, lets `write_contents` write the master into it, then publishes it
 * to `target`. Any failure removes the temp file; an HDF5 failure (a full disk) throws a
 * WriteError (exit 1) with write_failed_message().
 */
void write_master_file(const std::filesystem::path& target, const std::function<void(hid_t file)>& write_contents,
                       std::string_view retry = retry_run);

/**
 * What every master has besides its rows, written once /tasks and /results are: /params
 * and /ranges (when missing), time units, item rows, the netCDF dimensions of `task_count`
 * tasks and the root attributes, with `counts` and `complete` instead of info's.
 */
void finish_master_file(hid_t file, const MasterInfo& info, std::uint64_t task_count, const StatusCounts& counts,
                        bool complete);

/**
 * Writes a consolidated master to `target` (temp name, fsync, rename) from `stream`, a block
 * of rows at a time: memory does not grow with the task count. `complete` is stored as
 * info.complete and no task left pending.
 * @param stream  a stream of the whole job ([0, T)) with fields
 * @return the counts of the rows written
 */
StatusCounts write_master_streamed(const std::filesystem::path& target, const MasterInfo& info, TaskStream& stream,
                                  std::string_view retry = retry_run);

}  // namespace shardrun::io::master
