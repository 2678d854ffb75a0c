// read_results_table(): the master's /params, scalar /results and /tasks as columns.
#include "io/read/results_table.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <set>

#include "base/documented_error.hpp"
#include "io/errors.hpp"
#include "io/read/live_snapshot.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/layout/output_layout.hpp"
#include "io/result_types.hpp"
#include "io/task_rows/label_columns.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

/**
 * <parent>/<name> as a column when it is 1-D with one value per task; false otherwise
 * (a vector field, or a dataset the file format adds beside the columns).
 */
bool read_column(hid_t parent, const std::string& name, std::uint64_t rows, TableColumn& column)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
    const auto dims = hdf5::dataset_extents(dataset.get());
    if (dims.size() != 1 || dims[0] != rows) return false;
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
    // /tasks/host and device: codes whose texts are a label coordinate (io/task_rows/label_columns.hpp).
    if (H5Tget_class(type.get()) == H5T_INTEGER && SHARDRUN_H5_CHECK(H5Aexists(dataset.get(), "labels")) > 0) {
        column.values = read_text_column(parent, name, 0, static_cast<std::size_t>(rows));
        return true;
    }
    switch (H5Tget_class(type.get())) {
    case H5T_FLOAT:
        column.values = hdf5::read_column<double>(parent, name, H5T_NATIVE_DOUBLE);
        column.single_precision = H5Tget_size(type.get()) == 4;
        return true;
    case H5T_INTEGER:
    case H5T_ENUM:
        column.values = hdf5::read_column<std::int64_t>(parent, name, H5T_NATIVE_INT64);
        column.is_bool = hdf5::is_bool_storage(type.get());
        return true;
    case H5T_STRING: column.values = hdf5::read_strings(parent, name); return true;
    default: return false;
    }
}

/**
 * Names of the datasets directly under `group`, in name order, without its dimension scales
 * (every group's own `task` ids, the bare `<field>_dim<k>` axes): they label columns, they are none.
 */
std::vector<std::string> dataset_names(hid_t group)
{
    std::vector<std::string> names;
    const auto collect = [](hid_t parent, const char* name, const H5L_info_t*, void* out) -> herr_t {
        H5O_info_t info;
        if (H5Oget_info_by_name(parent, name, &info, H5P_DEFAULT) >= 0 && info.type == H5O_TYPE_DATASET &&
            H5Aexists_by_name(parent, name, "CLASS", H5P_DEFAULT) <= 0) {
            static_cast<std::vector<std::string>*>(out)->emplace_back(name);
        }
        return 0;
    };
    SHARDRUN_H5_CHECK(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names));
    return names;
}

void add_params(hid_t file, ResultsTable& table)
{
    if (!hdf5::has_link(file, "params")) return;
    auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "params", H5P_DEFAULT));
    // In the order the job declares its sweep (a file written before column_order: by name).
    auto names = hdf5::read_string_list_attr(group.get(), "column_order");
    for (const auto& name : dataset_names(group.get())) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    for (const auto& name : names) {
        // The task axis itself (a coordinate of task ids) is the table's first column already.
        if (name == "task" || !hdf5::has_link(group.get(), name)) continue;
        TableColumn column{name, ColumnRole::param, {}, false};
        if (read_column(group.get(), name, table.task_count, column)) table.columns.push_back(std::move(column));
    }
}

void add_results(hid_t file, ResultsTable& table)
{
    if (!hdf5::has_link(file, "results")) return;
    auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "results", H5P_DEFAULT));
    // The declared order of the job file; bare dimensions that share the group are not fields.
    auto names = hdf5::read_string_list_attr(file, "fields");
    if (names.empty()) names = dataset_names(group.get());
    for (const auto& name : names) {
        if (!hdf5::has_link(group.get(), name)) continue;
        TableColumn column{name, ColumnRole::result, {}, false};
        if (read_column(group.get(), name, table.task_count, column)) {
            table.columns.push_back(std::move(column));
        } else {
            table.non_scalar.push_back(name);
        }
    }
}

void add_task_and_status(hid_t file, ResultsTable& table)
{
    std::vector<std::int64_t> ids(table.task_count);
    for (std::uint64_t id = 0; id < table.task_count; ++id) ids[id] = static_cast<std::int64_t>(id);
    table.columns.insert(table.columns.begin(), TableColumn{"task", ColumnRole::task, std::move(ids), false});
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "tasks", H5P_DEFAULT));
    const auto status = hdf5::read_column<std::int8_t>(tasks.get(), "status", H5T_NATIVE_INT8);
    if (status.size() != table.task_count) SHARDRUN_THROW(Hdf5Error, "/tasks/status has " + std::to_string(status.size()) + " rows");
    std::vector<std::string> names;
    for (const auto value : status) {
        names.emplace_back(task_status_name(static_cast<TaskStatus>(value)));
        table.has_result.push_back(value == static_cast<std::int8_t>(TaskStatus::ok));
    }
    table.columns.push_back(TableColumn{"status", ColumnRole::status, std::move(names), false});
}

/** CF's Unix time units, as the master writes them on /tasks/start and /tasks/end. */
bool is_unix_time(hid_t parent, const std::string& name)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
    const auto units = hdf5::read_string_attr(dataset.get(), "units");
    return units && units->starts_with("seconds since 1970-01-01");
}

/** Cells <= 0 of a time column are missing: the task never started (the file holds 0 there). */
void mark_unset_times(TableColumn& column)
{
    const auto& times = std::get<std::vector<double>>(column.values);
    column.missing.resize(times.size());
    for (std::size_t row = 0; row < times.size(); ++row) column.missing[row] = !(times[row] > 0);
}

/** `seconds` = end - start where the task started and ended (missing elsewhere). */
void add_seconds(ResultsTable& table)
{
    const int start = table.find("start"), end = table.find("end");
    if (start < 0 || end < 0 || !table.columns[start].is_float() || !table.columns[end].is_float()) return;
    const auto& from = std::get<std::vector<double>>(table.columns[start].values);
    const auto& to = std::get<std::vector<double>>(table.columns[end].values);
    TableColumn seconds{"seconds", ColumnRole::record, std::vector<double>(table.task_count, 0.0), false};
    seconds.missing.assign(table.task_count, true);
    for (std::size_t row = 0; row < table.task_count; ++row) {
        if (!(from[row] > 0) || !(to[row] >= from[row])) continue;
        std::get<std::vector<double>>(seconds.values)[row] = to[row] - from[row];
        seconds.missing[row] = false;
    }
    table.columns.push_back(std::move(seconds));
}

/**
 * `gpu_hours_active` = GPU-hours weighted by GPM's SM activity (seconds / 3600 x gpu_sm_active / 100),
 * where the file has GPM: what a task's GPU time was worth (README, "Energy, money and a budget").
 */
void add_active_gpu_hours(ResultsTable& table)
{
    const int seconds = table.find("seconds"), sm = table.find("gpu_sm_active");
    if (seconds < 0 || sm < 0 || !table.columns[sm].is_float()) return;
    const auto& time = std::get<std::vector<double>>(table.columns[seconds].values);
    const auto& active = std::get<std::vector<double>>(table.columns[sm].values);
    TableColumn hours{"gpu_hours_active", ColumnRole::record, std::vector<double>(table.task_count, 0.0), false};
    hours.missing.assign(table.task_count, true);
    for (std::size_t row = 0; row < table.task_count; ++row) {
        if (table.columns[seconds].missing[row] || std::isnan(active[row])) continue;
        std::get<std::vector<double>>(hours.values)[row] = time[row] / 3600.0 * active[row] / 100.0;
        hours.missing[row] = false;
    }
    table.columns.push_back(std::move(hours));
}

/** GPU telemetry or accounting of a task that was not measured (NaN, or -1 in the integer columns) is missing, not a value. */
void mark_unmeasured(TableColumn& column)
{
    const auto n = std::visit([](const auto& values) { return values.size(); }, column.values);
    column.missing.assign(n, false);
    if (const auto* values = std::get_if<std::vector<double>>(&column.values)) {
        for (std::size_t i = 0; i < n; ++i) column.missing[i] = std::isnan((*values)[i]);
    } else if (const auto* values = std::get_if<std::vector<std::int64_t>>(&column.values)) {
        for (std::size_t i = 0; i < n; ++i) column.missing[i] = (*values)[i] < 0;
    }
}

/**
 * Every 1-D /tasks column but status (already the status column), read by its stored type, so
 * that a column the format adds later (e.g. message) is there without a change here.
 */
void add_task_records(hid_t file, ResultsTable& table)
{
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "tasks", H5P_DEFAULT));
    const auto first = table.columns.size();
    for (const auto& name : dataset_names(tasks.get())) {
        if (name == "status" || name == "task") continue;
        TableColumn column{name, ColumnRole::record, {}, false};
        if (!read_column(tasks.get(), name, table.task_count, column)) continue;
        column.is_time = column.is_float() && is_unix_time(tasks.get(), name);
        if (column.is_time) mark_unset_times(column);
        if (name.rfind("gpu_", 0) == 0 || name == "cpu_time" || name == "mem_peak" || name == "energy_j" ||
            name == "cpu_energy_j" || name == "cost_usd") {
            mark_unmeasured(column);
        }
        table.columns.push_back(std::move(column));
    }
    // Looked up among the /tasks columns only: a result field called start must not stand in.
    ResultsTable records;
    records.task_count = table.task_count;
    records.columns.assign(std::make_move_iterator(table.columns.begin() + static_cast<std::ptrdiff_t>(first)),
                           std::make_move_iterator(table.columns.end()));
    table.columns.erase(table.columns.begin() + static_cast<std::ptrdiff_t>(first), table.columns.end());
    add_seconds(records);
    add_active_gpu_hours(records);
    for (auto& column : records.columns) table.columns.push_back(std::move(column));
}

/** A param or result named like a built-in column (or like each other) gets its group as prefix. */
void qualify_duplicates(ResultsTable& table)
{
    std::set<std::string> seen{"task", "status"};
    for (auto& column : table.columns) {
        if (column.role == ColumnRole::task || column.role == ColumnRole::status) continue;
        if (!seen.insert(column.name).second) {
            const char* group = column.role == ColumnRole::param ? "params/" : column.role == ColumnRole::result ? "results/"
                                                                                                               : "tasks/";
            column.name = group + column.name;
        }
    }
}

[[noreturn]] void not_consolidated(const std::string& path)
{
    if (stopped_single_element(path)) {
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#not-merged",
                                  path + " has no master file yet, only " + layout::shards_dir(path).string() +
                                  ": its run stopped before it finished (no run holds its lock); `shardrun run JOB "
                                  "--resume` runs the rest and writes it");
    }
    SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#not-merged",
                              path + " has no master file yet, only " + layout::shards_dir(path).string() +
                              " (the run is going on, stopped, or is one element of an array job); `shardrun status " + path +
                              "` shows its progress, `shardrun merge " + path + "` writes the master once the run has ended");
}

}  // namespace

int ResultsTable::find(const std::string& name) const noexcept
{
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].name == name) return static_cast<int>(i);
    }
    return -1;
}

std::vector<std::string> ResultsTable::names() const
{
    std::vector<std::string> out;
    for (const auto& column : columns) out.push_back(column.name);
    return out;
}

void require_master(const std::string& path)
{
    if (fs::exists(path)) return;
    if (!layout::element_indexes(path).empty()) not_consolidated(path);
    SHARDRUN_THROW(OutputError, "no results file at " + path + "; check the path (output.path of the job)");
}

ResultsTable read_results_table(const std::string& path)
{
    require_master(path);
    hdf5::silence_hdf5_errors();
    ResultsTable table;
    table.path = path;
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        const auto count = hdf5::read_int_attr(file.get(), "task_count");
        if (!count || !hdf5::has_link(file.get(), "tasks/status")) {
            SHARDRUN_THROW(OutputError, path + " is not a shardrun results file (no task_count or /tasks/status)");
        }
        table.task_count = static_cast<std::uint64_t>(*count);
        table.complete = hdf5::read_bool_attr(file.get(), "complete").value_or(false);
        add_params(file.get(), table);
        add_results(file.get(), table);
        add_task_and_status(file.get(), table);
        add_task_records(file.get(), table);
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(OutputError, path + " is not a readable shardrun results file (" + error.cause() + ")");
    }
    qualify_duplicates(table);
    return table;
}

}  // namespace shardrun::io
