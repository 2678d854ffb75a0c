#pragma once

#include <hdf5.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/job_output.hpp"
#include "io/task_table.hpp"

namespace shardrun::io::master {

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
};

/** Root attributes: provenance, versions, sizes, `complete`. */
void write_root_attrs(hid_t file, const MasterInfo& info);
/** /tasks/<column>, length T. */
void write_task_columns(hid_t file, const TaskRows& rows);
/** /params/<name> and /ranges/{start,end}; skipped when they already exist. */
void write_params(hid_t file, const std::vector<ParamColumn>& params, const TaskRanges& ranges);
/** /results/<field> [T, ...] (contiguous, fill value recorded, never filled) with `units`. */
void create_result_datasets(hid_t file, const std::vector<FieldSpec>& fields, std::uint64_t task_count);
/** Makes /params/<name> dimension scales of the task axis of every /results/<field>. */
void attach_scales(hid_t file, const std::vector<FieldSpec>& fields, const std::vector<ParamColumn>& params);

/**
 * Copies the winning rows of `table` into /results/<field> and writes the fill value into
 * rows that have no result. A segment whose results fail their CRC now is dropped: its
 * rows become pending (table is updated) and get the fill value.
 */
void copy_results(hid_t file, const std::vector<FieldSpec>& fields, TaskTable& table);

/** Writes rows without an ok result (status != ok) of an existing [T, ...] file with the fill value. */
void fill_missing_rows(hid_t file, const std::vector<FieldSpec>& fields, const TaskRows& rows);

/** Writes a consolidated master to `target` (temp name, fsync, rename). */
void write_master(const std::filesystem::path& target, const MasterInfo& info, TaskTable& table);

/**
 * layout single: turns the element's data file into a master in place (attributes, params,
 * fill of missing rows) and, when `target` is not empty, renames it there.
 */
void finish_single(const std::filesystem::path& single, const std::filesystem::path& target, const MasterInfo& info,
                   const TaskTable& table);

}  // namespace shardrun::io::master
