// /tasks/cpu_time and /tasks/mem_peak: per-task CPU time and peak resident memory.
#include "io/task_rows/usage_columns.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"

namespace shardrun::io {
namespace {

constexpr const char* usage_dataset = "usage";

/** One row of a segment's usage compound. */
struct PackedUsage {
    double cpu_time;
    std::int64_t mem_peak;
};

hdf5::Datatype packed_usage_type()
{
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Tcreate(H5T_COMPOUND, sizeof(PackedUsage)));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), cpu_time_column, HOFFSET(PackedUsage, cpu_time), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), mem_peak_column, HOFFSET(PackedUsage, mem_peak), H5T_NATIVE_INT64));
    return type;
}

void describe(hid_t tasks, const char* name, const char* units, const char* note)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, name, H5P_DEFAULT));
    hdf5::write_attr(dataset.get(), "units", std::string(units));
    hdf5::write_attr(dataset.get(), "note", std::string(note));
}

}  // namespace

bool any_usage(const TaskRows& rows)
{
    return std::any_of(rows.mem_peak.begin(), rows.mem_peak.end(), [](std::int64_t bytes) { return bytes >= 0; }) ||
           std::any_of(rows.cpu_time.begin(), rows.cpu_time.end(), [](double seconds) { return !std::isnan(seconds); });
}

void describe_usage_columns(hid_t tasks)
{
    describe(tasks, cpu_time_column, "s",
             "user + system CPU time of the task's process and the descendants it waited for (exec tasks run once per "
             "task); NaN: not measured (built-in kinds, exec workers, a task that never ran)");
    describe(tasks, mem_peak_column, "bytes",
             "peak resident memory of the task's process or of one descendant it waited for (not their sum); "
             "-1: not measured");
}

void read_usage_block(hid_t tasks, std::uint64_t first, std::size_t count, TaskRows& rows)
{
    rows.cpu_time.assign(count, TaskRecord{}.cpu_time);
    rows.mem_peak.assign(count, TaskRecord{}.mem_peak);
    // A file written before these columns existed has neither.
    if (count == 0 || !hdf5::has_link(tasks, cpu_time_column)) return;
    auto cpu = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, cpu_time_column, H5P_DEFAULT));
    hdf5::read_column_block(cpu.get(), H5T_NATIVE_DOUBLE, first, count, rows.cpu_time.data());
    auto mem = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, mem_peak_column, H5P_DEFAULT));
    hdf5::read_column_block(mem.get(), H5T_NATIVE_INT64, first, count, rows.mem_peak.data());
}

void write_usage_compound(hid_t file, const TaskRows& rows)
{
    if (!any_usage(rows)) return;
    std::vector<PackedUsage> packed(rows.size());
    for (std::size_t i = 0; i < packed.size(); ++i) packed[i] = PackedUsage{rows.cpu_time[i], rows.mem_peak[i]};
    const auto type = packed_usage_type();
    hdf5::write_column(file, usage_dataset, type.get(), type.get(), packed.data(), packed.size());
}

void read_usage_compound(hid_t file, TaskRows& rows)
{
    rows.cpu_time.assign(rows.size(), TaskRecord{}.cpu_time);
    rows.mem_peak.assign(rows.size(), TaskRecord{}.mem_peak);
    if (!hdf5::has_link(file, usage_dataset)) return;  // no task of the segment was measured
    const auto type = packed_usage_type();
    const auto packed = hdf5::read_column<PackedUsage>(file, usage_dataset, type.get());
    // Sized as stored: a torn segment's other length fails the reader's length check.
    rows.cpu_time.resize(packed.size());
    rows.mem_peak.resize(packed.size());
    for (std::size_t i = 0; i < packed.size(); ++i) {
        rows.cpu_time[i] = packed[i].cpu_time;
        rows.mem_peak[i] = packed[i].mem_peak;
    }
}

}  // namespace shardrun::io
