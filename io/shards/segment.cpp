#include "io/shards/segment.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/checksum/checksum.hpp"
#include "io/errors.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/row_chunks.hpp"
#include "io/hdf5/types.hpp"
#include "io/layout/output_layout.hpp"
#include "io/shards/segment_mapping.hpp"
#include "io/shards/segment_writer.hpp"
#include "io/task_rows/gpu_columns.hpp"
#include "io/task_rows/usage_columns.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::shards {
namespace {

constexpr const char* segment_format = "shardrun-segment/1";

/** One /tasks row of a segment: one compound dataset costs far less to create and read than nine columns. */
struct PackedRow {
    std::uint64_t task_id;
    double start;
    double end;
    std::int32_t attempts;
    std::int32_t rank;
    std::int32_t exit_code;
    std::int8_t status;
};

hdf5::Datatype packed_row_type()
{
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Tcreate(H5T_COMPOUND, sizeof(PackedRow)));
    const auto status_type = hdf5::status_enum_type();
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "task_id", HOFFSET(PackedRow, task_id), H5T_NATIVE_UINT64));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "start", HOFFSET(PackedRow, start), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "end", HOFFSET(PackedRow, end), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "attempts", HOFFSET(PackedRow, attempts), H5T_NATIVE_INT32));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "rank", HOFFSET(PackedRow, rank), H5T_NATIVE_INT32));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "exit_code", HOFFSET(PackedRow, exit_code), H5T_NATIVE_INT32));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "status", HOFFSET(PackedRow, status), status_type.get()));
    return type;
}

/** Whether the field dataset `name` of `results` is stored a chunk per row (row_chunks.hpp). */
bool stored_per_row(hid_t results, const std::string& name)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(results, name.c_str(), H5P_DEFAULT));
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Dget_create_plist(dataset.get()));
    return H5Pget_layout(dcpl.get()) == H5D_CHUNKED;
}

}  // namespace

void write_segment_body(hid_t file, const SegmentHeader& header, const TaskRows& rows, const std::vector<FieldSpec>& fields,
                        const std::vector<std::optional<std::uint32_t>>& row_chunk_checksums)
{
    const std::size_t n = rows.size();
    std::vector<PackedRow> packed(n);
    for (std::size_t i = 0; i < n; ++i) {
        packed[i] = PackedRow{rows.task_id[i],  rows.start[i],     rows.end[i], rows.attempts[i],
                              rows.rank[i],     rows.exit_code[i], rows.status[i]};
    }
    const auto row_type = packed_row_type();
    hdf5::write_column(file, "tasks", row_type.get(), row_type.get(), packed.data(), n);
    hdf5::write_fixed_strings(file, "host", rows.host);
    hdf5::write_fixed_strings(file, "device", rows.device);
    hdf5::write_fixed_strings(file, "message", rows.message);
    hdf5::write_fixed_strings(file, "attempt_log", rows.attempt_log);
    if (any_gpu_usage(rows.gpu)) write_gpu_compound(file, "gpu", rows.gpu);
    write_usage_compound(file, rows);  // only where some task was measured
    auto results = hdf5::ensure_group(file, "results");
    std::vector<std::string> names;
    std::uint32_t results_crc = 0;
    for (std::size_t f = 0; f < fields.size(); ++f) {
        names.push_back(fields[f].name);
        // A per-row field's chunks are written already (segment_writer.hpp); its checksum comes with them.
        auto value = row_chunk_checksums[f];
        if (!value) {
            hdf5::write_field_rows(results.get(), fields[f], rows.fields[f].data(), n);
            value = lane_checksum(rows.fields[f].data(), rows.fields[f].size());
        }
        results_crc = crc32c(results_crc, &*value, sizeof *value);
    }
    hdf5::write_attr(file, "format", std::string(segment_format));
    hdf5::write_attr(file, "job_hash", header.job_hash);
    hdf5::write_attr(file, "array_index", std::int64_t{header.array_index});
    hdf5::write_attr(file, "rank", std::int64_t{header.rank});
    hdf5::write_attr(file, "seq", std::int64_t{header.seq});
    hdf5::write_attr(file, "fields", names);
    hdf5::write_attr(file, "rows", static_cast<std::int64_t>(n));
    hdf5::write_attr(file, "crc32c_tasks", static_cast<std::int64_t>(rows.columns_checksum()));
    hdf5::write_attr(file, "crc32c_results", static_cast<std::int64_t>(results_crc));
}

namespace {

TaskRows read_columns(hid_t file)
{
    const auto row_type = packed_row_type();
    const auto packed = hdf5::read_column<PackedRow>(file, "tasks", row_type.get());
    TaskRows rows;
    for (const auto& row : packed) {
        rows.task_id.push_back(row.task_id);
        rows.status.push_back(row.status);
        rows.attempts.push_back(row.attempts);
        rows.rank.push_back(row.rank);
        rows.start.push_back(row.start);
        rows.end.push_back(row.end);
        rows.exit_code.push_back(row.exit_code);
    }
    rows.host = hdf5::read_strings(file, "host");
    rows.device = hdf5::read_strings(file, "device");
    // Absent from segments written before them: empty texts (as the checksum assumes).
    for (auto [name, column] : {std::pair{"message", &rows.message}, std::pair{"attempt_log", &rows.attempt_log}}) {
        *column = hdf5::has_link(file, name) ? hdf5::read_strings(file, name) : std::vector<std::string>(rows.size());
    }
    rows.gpu = read_gpu_compound(file, "gpu", rows.size());  // absent without telemetry
    read_usage_compound(file, rows);
    return rows;
}

bool lengths_agree(const TaskRows& rows)
{
    const auto n = rows.size();
    return rows.status.size() == n && rows.attempts.size() == n && rows.rank.size() == n && rows.host.size() == n &&
           rows.device.size() == n && rows.start.size() == n && rows.end.size() == n && rows.exit_code.size() == n &&
           rows.message.size() == n && rows.attempt_log.size() == n && rows.gpu.size() == n &&
           rows.cpu_time.size() == n && rows.mem_peak.size() == n;
}

Segment read_verified(const fs::path& path, bool with_fields, bool map_rows)
{
    auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (hdf5::read_string_attr(file.get(), "format").value_or("") != segment_format) SHARDRUN_THROW(Hdf5Error, "not a segment");
    Segment segment;
    segment.header.job_hash = hdf5::read_string_attr(file.get(), "job_hash").value_or("");
    segment.header.array_index = static_cast<int>(hdf5::read_int_attr(file.get(), "array_index").value_or(-1));
    segment.header.rank = static_cast<int>(hdf5::read_int_attr(file.get(), "rank").value_or(-1));
    segment.header.seq = static_cast<long>(hdf5::read_int_attr(file.get(), "seq").value_or(-1));
    segment.rows = read_columns(file.get());
    const auto rows = hdf5::read_int_attr(file.get(), "rows");
    if (!rows || static_cast<std::size_t>(*rows) != segment.rows.size() || !lengths_agree(segment.rows)) {
        SHARDRUN_THROW(Hdf5Error, "column lengths disagree");
    }
    if (hdf5::read_int_attr(file.get(), "crc32c_tasks") != static_cast<std::int64_t>(segment.rows.columns_checksum())) {
        SHARDRUN_THROW(Hdf5Error, "CRC-32C mismatch in /tasks");
    }
    auto results = SHARDRUN_H5_OPEN(Group, H5Gopen2(file.get(), "results", H5P_DEFAULT));
    std::vector<bool> per_row;
    std::uint32_t results_crc = 0;
    for (const auto& name : hdf5::read_string_list_attr(file.get(), "fields")) {
        segment.fields.push_back(hdf5::field_spec_of(results.get(), name));
        per_row.push_back(stored_per_row(results.get(), name));
        if (!with_fields) continue;
        const auto& spec = segment.fields.back();
        const auto n = segment.rows.size();
        segment.mapped_rows.emplace_back();
        if (map_rows && per_row.back() && n > 0) {
            if (!segment.mapping) segment.mapping = std::make_shared<MappedFile>(path);
            auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(results.get(), name.c_str(), H5P_DEFAULT));
            if (hdf5::dataset_length(dataset.get()) != n) SHARDRUN_THROW(Hdf5Error, "field '" + name + "' has the wrong number of rows");
            segment.mapped_rows.back() = map_row_chunks(dataset.get(), spec, n, *segment.mapping);
            segment.rows.fields.emplace_back();
            std::uint32_t crc = 0;
            for (const auto* row : segment.mapped_rows.back()) crc = hdf5::row_checksum_step(crc, row, spec.bytes());
            results_crc = crc32c(results_crc, &crc, sizeof crc);
            continue;
        }
        segment.rows.fields.push_back(hdf5::read_field_rows(results.get(), spec, n));
        const auto& column = segment.rows.fields.back();
        const auto crc = per_row.back() ? hdf5::rows_checksum(column, spec.bytes()) : lane_checksum(column.data(), column.size());
        results_crc = crc32c(results_crc, &crc, sizeof crc);
    }
    if (with_fields && hdf5::read_int_attr(file.get(), "crc32c_results") != static_cast<std::int64_t>(results_crc)) {
        SHARDRUN_THROW(Hdf5Error, "CRC-32C mismatch in /results");
    }
    return segment;
}

}  // namespace

void (*segment_commit_hook)(const char* stage) = nullptr;

void write_segment(const fs::path& target, const SegmentHeader& header, const TaskRows& rows,
                   const std::vector<FieldSpec>& fields)
{
    SegmentWriter writer(target, fields);
    writer.commit(header, rows);
}

namespace {

/** What a reader is told of a segment it skips: HDF5's cause ("truncated file: ..."), not the call that met it. */
std::string reason_of(const std::exception& error)
{
    if (const auto* hdf5 = dynamic_cast<const Hdf5Error*>(&error)) return "cannot be read (" + hdf5->cause() + ")";
    return error.what();
}

}  // namespace

std::optional<Segment> read_segment(const fs::path& file, std::string* why, SegmentReading reading)
{
    hdf5::silence_hdf5_errors();
    try {
        return read_verified(file, reading.results, reading.map_rows);
    } catch (const std::exception& error) {
        if (why) *why = reason_of(error);
        return std::nullopt;
    }
}

std::optional<SegmentSpan> read_segment_span(const fs::path& path, std::string* why)
{
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        // Whole rows, as stored: reading the ids alone (one member by name) costs a type
        // conversion whose zeroed 1 MiB buffers took a tenth of a merge's CPU.
        const auto row_type = packed_row_type();
        const auto rows = hdf5::read_column<PackedRow>(file.get(), "tasks", row_type.get());
        SegmentSpan span;
        span.rows = rows.size();
        if (!rows.empty()) {
            const auto [low, high] = std::minmax_element(
                rows.begin(), rows.end(), [](const PackedRow& a, const PackedRow& b) { return a.task_id < b.task_id; });
            span.first_id = low->task_id;
            span.last_id = high->task_id;
        }
        return span;
    } catch (const std::exception& error) {
        if (why) *why = reason_of(error);
        return std::nullopt;
    }
}

}  // namespace shardrun::io::shards
