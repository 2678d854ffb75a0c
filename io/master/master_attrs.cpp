// The metadata parts of a master file: root attributes, /tasks, /params.
#include <hdf5.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <variant>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/row_chunks.hpp"
#include "io/hdf5/types.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/master/master_file.hpp"
#include "io/param_source.hpp"
#include "io/task_rows/attempts_group.hpp"
#include "io/task_rows/gpu_columns.hpp"
#include "io/task_rows/usage_columns.hpp"
#include "io/task_rows/label_columns.hpp"

namespace shardrun::io::master {

void write_root_attrs(hid_t file, const MasterInfo& info)
{
    const auto& m = info.metadata;
    hdf5::write_attr(file, "format", std::string("shardrun-results/1"));
    hdf5::write_attr(file, "shardrun_version", m.shardrun_version);
    hdf5::write_attr(file, "git_commit", m.git_commit);
    hdf5::write_attr(file, "job_name", m.job_name);
    hdf5::write_attr(file, "job_file", m.job_file);
    hdf5::write_attr(file, "job_text", m.job_text);
    hdf5::write_attr(file, "params_json", m.params_json);
    hdf5::write_attr(file, "params_sha256", info.hash);
    // The jobs an extended sweep grew from: a later --resume needs them to keep the ids.
    if (!m.earlier_jobs.empty()) hdf5::write_attr(file, "earlier_params_json", nlohmann::json(m.earlier_jobs).dump());
    hdf5::write_attr(file, "created", iso8601_utc(info.created));
    hdf5::write_attr(file, "finished", iso8601_utc(info.finished));
    hdf5::write_attr(file, "world_size", std::int64_t{m.world_size});
    hdf5::write_attr(file, "array_index", std::int64_t{m.array_index});
    hdf5::write_attr(file, "array_count", std::int64_t{m.array_count});
    hdf5::write_attr(file, "task_count", static_cast<std::int64_t>(m.task_count));
    hdf5::write_attr(file, "hostnames", m.hostnames);
    hdf5::write_attr(file, "library_versions", nlohmann::json(m.library_versions).dump());
    for (const auto& [name, version] : m.library_versions) hdf5::write_attr(file, name + "_version", version);
    hdf5::write_attr(file, "layout", std::string(info.layout == Layout::single ? "single" : "shards"));
    std::vector<std::string> names;
    for (const auto& field : info.fields) names.push_back(field.name);
    hdf5::write_attr(file, "fields", names);
    hdf5::write_bool_attr(file, "complete", info.complete);
    hdf5::write_attr(file, "tasks_ok", static_cast<std::int64_t>(info.counts.ok));
    hdf5::write_attr(file, "tasks_failed", static_cast<std::int64_t>(info.counts.failed));
    hdf5::write_attr(file, "tasks_skipped", static_cast<std::int64_t>(info.counts.skipped));
    if (!info.segments_digest.empty()) hdf5::write_attr(file, "segments_digest", info.segments_digest);
    if (!info.quarantined.empty()) hdf5::write_attr(file, "quarantined", info.quarantined);
    write_scheduler_attrs(file, m);
}

void write_scheduler_attrs(hid_t file, const JobMetadata& m)
{
    // One attribute per id, named as its variable (f.attrs["SLURM_JOB_ID"]); scheduler_ids lists which they are.
    hdf5::write_attr(file, "scheduler", m.scheduler);
    std::vector<std::string> names;
    for (const auto& [name, value] : m.scheduler_ids) {
        hdf5::write_attr(file, name, value);
        names.push_back(name);
    }
    hdf5::write_attr(file, "scheduler_ids", names);
}

namespace {

/** CF time units: xarray decodes the column to datetime64 with no options. */
constexpr const char* time_units = "seconds since 1970-01-01T00:00:00Z";

}  // namespace

void write_task_columns(hid_t file, const TaskRows& rows)
{
    auto tasks = hdf5::ensure_group(file, "tasks");
    const auto n = rows.size();
    const auto status_type = hdf5::status_enum_type();
    auto status = hdf5::write_column(tasks.get(), "status", status_type.get(), status_type.get(), rows.status.data(), n);
    hdf5::write_attr(status.get(), "values", std::string("pending=0 ok=1 failed=2 skipped=3"));
    hdf5::write_column(tasks.get(), "attempts", H5T_NATIVE_INT32, H5T_NATIVE_INT32, rows.attempts.data(), n);
    hdf5::write_column(tasks.get(), "rank", H5T_NATIVE_INT32, H5T_NATIVE_INT32, rows.rank.data(), n);
    // Codes plus a label coordinate, as the streamed master writes them (label_columns.hpp).
    LabelCodes host_codes, device_codes;
    write_codes_block(create_code_column(tasks.get(), "host", n).get(), host_codes, 0, rows.host);
    write_codes_block(create_code_column(tasks.get(), "device", n).get(), device_codes, 0, rows.device);
    hdf5::write_column(tasks.get(), "start", H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE, rows.start.data(), n);
    hdf5::write_column(tasks.get(), "end", H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE, rows.end.data(), n);
    hdf5::write_column(tasks.get(), "exit_code", H5T_NATIVE_INT32, H5T_NATIVE_INT32, rows.exit_code.data(), n);
    hdf5::write_strings(tasks.get(), "message", rows.message);
    hdf5::write_column(tasks.get(), cpu_time_column, H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE, rows.cpu_time.data(), n);
    hdf5::write_column(tasks.get(), mem_peak_column, H5T_NATIVE_INT64, H5T_NATIVE_INT64, rows.mem_peak.data(), n);
    describe_usage_columns(tasks.get());
    if (any_gpu_usage(rows.gpu)) write_gpu_block(tasks.get(), n, 0, rows.gpu, gpu_scopes_of(rows.gpu));
    AttemptsWriter attempts(file);
    attempts.append(rows);
    attempts.finish();
    // The labels' dimensions after /attempts' (the order of every master's dimension ids).
    write_code_labels(file, tasks.get(), "host", host_codes);
    write_code_labels(file, tasks.get(), "device", device_codes);
}

void write_time_units(hid_t file)
{
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "tasks", H5P_DEFAULT));
    for (const char* name : {"start", "end"}) {
        auto column = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks.get(), name, H5P_DEFAULT));
        hdf5::write_attr(column.get(), "units", std::string(time_units));
    }
}

void write_params(hid_t file, const ParamSource& source)
{
    const std::uint64_t count = source.task_count();
    auto group = hdf5::ensure_group(file, "params");
    // HDF5 lists links by name; readers that show columns (table) take the job's order from here.
    std::vector<std::string> order;
    for (const auto& column : source.columns()) order.push_back(column.name);
    if (!order.empty()) hdf5::write_attr(group.get(), "column_order", order);
    std::vector<hdf5::Dataset> datasets;  // invalid where the file already has the column
    for (const auto& column : source.columns()) {
        if (hdf5::has_link(group.get(), column.name)) {
            datasets.emplace_back();
            continue;
        }
        const auto text = hdf5::vlen_string_type();
        const hid_t type = column.type == ParamType::text      ? text.get()
                           : column.type == ParamType::float64 ? H5T_NATIVE_DOUBLE
                                                               : H5T_NATIVE_INT64;
        datasets.push_back(hdf5::create_column(group.get(), column.name, type, count));
    }
    hdf5::Dataset start;
    hdf5::Dataset end;
    if (source.has_ranges() && !hdf5::has_link(file, "ranges")) {
        auto group_ranges = hdf5::ensure_group(file, "ranges");
        start = hdf5::create_column(group_ranges.get(), "start", H5T_NATIVE_INT64, count);
        end = hdf5::create_column(group_ranges.get(), "end", H5T_NATIVE_INT64, count);
    }
    const bool any = std::any_of(datasets.begin(), datasets.end(), [](const auto& d) { return static_cast<bool>(d); });
    if (!any && !start) return;
    std::vector<ParamColumn> block;
    TaskRanges ranges;
    const std::uint64_t block_rows = stream_block_rows();
    for (std::uint64_t first = 0; first < count; first += block_rows) {
        const auto rows = static_cast<std::size_t>(std::min<std::uint64_t>(block_rows, count - first));
        source.read(first, rows, block, ranges);
        for (std::size_t i = 0; i < datasets.size(); ++i) {
            if (!datasets[i]) continue;
            std::visit(
                [&](const auto& values) {
                    using T = typename std::decay_t<decltype(values)>::value_type;
                    if constexpr (std::is_same_v<T, std::string>) {
                        hdf5::write_strings_block(datasets[i].get(), first, values);
                    } else {
                        const hid_t type = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
                        hdf5::write_column_block(datasets[i].get(), type, first, values.size(), values.data());
                    }
                },
                block[i].values);
        }
        if (!start) continue;
        hdf5::write_column_block(start.get(), H5T_NATIVE_INT64, first, rows, ranges.start.data());
        hdf5::write_column_block(end.get(), H5T_NATIVE_INT64, first, rows, ranges.end.data());
    }
}

void write_params(hid_t file, const MasterInfo& info)
{
    if (info.param_source != nullptr) {
        write_params(file, *info.param_source);
        return;
    }
    write_params(file, ColumnsParamSource(info.params, info.ranges));
}

void create_result_datasets(hid_t file, const std::vector<FieldSpec>& fields, std::uint64_t task_count, bool row_chunks)
{
    auto results = hdf5::ensure_group(file, "results");
    for (const auto& field : fields) {
        const auto dims = hdf5::field_dims(field, task_count);
        auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
        const auto dcpl = row_chunks && hdf5::chunked_per_row(field) ? hdf5::row_chunk_properties(field)
                                                                     : hdf5::field_creation_properties(field);
        auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(results.get(), field.name.c_str(), hdf5::native_type(field.dtype),
                                                            space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
        if (!field.units.empty()) hdf5::write_attr(dataset.get(), "units", field.units);
        if (field.dtype == DType::boolean) hdf5::mark_bool_field(dataset.get());
        // A parameter-sized axis is stored at its largest value: this column holds each task's own.
        if (!field.length_param.empty()) hdf5::write_attr(dataset.get(), "length", length_field_name(field.name));
    }
}

}  // namespace shardrun::io::master
