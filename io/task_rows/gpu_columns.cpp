// The /tasks/gpu_* columns: per-task GPU telemetry, present only where some task was measured.
#include "io/task_rows/gpu_columns.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"

namespace shardrun::io {
namespace {

constexpr const char* device_note = "per device: every process on the task's GPU counts, not only the task's";

enum Column : std::size_t { mem_peak, util_mean, util_peak, energy_j, temp_max, xid_events };

hid_t type_of(std::size_t column)
{
    return column == mem_peak ? H5T_NATIVE_INT64 : column == xid_events ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE;
}

void create(hid_t tasks, std::size_t column, std::uint64_t task_count)
{
    const auto& spec = gpu_columns()[column];
    const hsize_t extent = task_count;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, nullptr));
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_CREATE));
    // Rows never written (a task not run, or run without telemetry) read as "not measured".
    const std::int64_t none64 = -1;
    const std::int32_t none32 = -1;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const void* fill = column == mem_peak ? static_cast<const void*>(&none64)
                       : column == xid_events ? static_cast<const void*>(&none32) : static_cast<const void*>(&nan);
    SHARDRUN_H5_CHECK(H5Pset_fill_value(dcpl.get(), type_of(column), fill));
    auto dataset = SHARDRUN_H5_OPEN(
        Dataset, H5Dcreate2(tasks, spec.name, type_of(column), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
    hdf5::write_attr(dataset.get(), "units", std::string(spec.units));
    hdf5::write_attr(dataset.get(), "note", std::string(spec.note));
}

template <typename T, typename Get>
std::vector<T> column_of(const std::vector<TaskGpuUsage>& rows, Get get)
{
    std::vector<T> out;
    out.reserve(rows.size());
    for (const auto& row : rows) out.push_back(get(row));
    return out;
}

/** The `scope` attribute of gpu_mem_peak for the scopes seen so far. */
std::string scope_text(unsigned scopes)
{
    const bool process = (scopes & (1U << static_cast<int>(GpuMemScope::process))) != 0;
    const bool device = (scopes & (1U << static_cast<int>(GpuMemScope::device))) != 0;
    if (process && device) return "mixed: per process where NVML listed the task's processes, else per device";
    if (process) return "process: memory of the task's own processes";
    return "device: memory used on the whole device (NVML listed no process of the task, as in a container)";
}

/** A segment's compound row: one dataset for the six values. */
hdf5::Datatype compound_type()
{
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Tcreate(H5T_COMPOUND, sizeof(TaskGpuUsage)));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "mem_peak", HOFFSET(TaskGpuUsage, mem_peak), H5T_NATIVE_INT64));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "util_mean", HOFFSET(TaskGpuUsage, util_mean), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "util_peak", HOFFSET(TaskGpuUsage, util_peak), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "energy_j", HOFFSET(TaskGpuUsage, energy_j), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "temp_max", HOFFSET(TaskGpuUsage, temp_max), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "xid_events", HOFFSET(TaskGpuUsage, xid_events), H5T_NATIVE_INT32));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "mem_scope", HOFFSET(TaskGpuUsage, mem_scope), H5T_NATIVE_INT8));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "sm_active", HOFFSET(TaskGpuUsage, sm_active), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "sm_occupancy", HOFFSET(TaskGpuUsage, sm_occupancy), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "tensor_active", HOFFSET(TaskGpuUsage, tensor_active), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "dram_bw", HOFFSET(TaskGpuUsage, dram_bw), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "cpu_energy_j", HOFFSET(TaskGpuUsage, cpu_energy_j), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "total_energy_j", HOFFSET(TaskGpuUsage, total_energy_j), H5T_NATIVE_DOUBLE));
    SHARDRUN_H5_CHECK(H5Tinsert(type.get(), "cost_usd", HOFFSET(TaskGpuUsage, cost_usd), H5T_NATIVE_DOUBLE));
    return type;
}

/** A /tasks column of doubles beyond the six: GPM's, energy's and money's. */
struct ExtraColumn {
    GpuColumn spec;
    double TaskGpuUsage::*member;
    bool (TaskGpuUsage::*present)() const noexcept;  ///< the rows that make the column exist (null: a value in `member`)
};

const std::vector<ExtraColumn>& extra_columns()
{
    constexpr const char* gpm_note = "GPM mean over the task (NVML, Hopper or later); per device or MIG instance";
    static const std::vector<ExtraColumn> columns{
        {{"gpu_sm_active", "percent", gpm_note}, &TaskGpuUsage::sm_active, &TaskGpuUsage::has_gpm},
        {{"gpu_sm_occupancy", "percent", gpm_note}, &TaskGpuUsage::sm_occupancy, &TaskGpuUsage::has_gpm},
        {{"gpu_tensor_active", "percent", gpm_note}, &TaskGpuUsage::tensor_active, &TaskGpuUsage::has_gpm},
        {{"gpu_dram_bw", "percent", gpm_note}, &TaskGpuUsage::dram_bw, &TaskGpuUsage::has_gpm},
        {{"energy_j", "J", "GPU energy plus the task's share of the CPUs' (RAPL), what is known of them"},
         &TaskGpuUsage::total_energy_j, nullptr},
        {{"cpu_energy_j", "J", "the task's share of the node's RAPL CPU energy while it ran; NaN: not readable"},
         &TaskGpuUsage::cpu_energy_j, nullptr},
        {{"cost_usd", "USD", "hours x (price.gpu_hour x the task's GPUs + price.node_hour x its share of the node); NaN: no price"},
         &TaskGpuUsage::cost_usd, nullptr}};
    return columns;
}

bool any_row(const std::vector<TaskGpuUsage>& rows, bool (TaskGpuUsage::*present)() const noexcept)
{
    for (const auto& row : rows) {
        if ((row.*present)()) return true;
    }
    return false;
}

void write_extra_columns(hid_t tasks, std::uint64_t task_count, std::uint64_t first, const std::vector<TaskGpuUsage>& rows)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const auto& column : extra_columns()) {
        const bool exists = hdf5::has_link(tasks, column.spec.name);
        // Absent until some row has a value: no energy column where only a price is known, and the reverse.
        const bool any = column.present != nullptr
                             ? any_row(rows, column.present)
                             : std::any_of(rows.begin(), rows.end(), [&](const TaskGpuUsage& r) {
                                   return !std::isnan(r.*column.member);
                               });
        if (!exists && !any) continue;
        if (!exists) {
            const hsize_t extent = task_count;
            auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, nullptr));
            auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_CREATE));
            SHARDRUN_H5_CHECK(H5Pset_fill_value(dcpl.get(), H5T_NATIVE_DOUBLE, &nan));
            auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(tasks, column.spec.name, H5T_NATIVE_DOUBLE, space.get(),
                                                                 H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
            hdf5::write_attr(dataset.get(), "units", std::string(column.spec.units));
            hdf5::write_attr(dataset.get(), "note", std::string(column.spec.note));
        }
        const auto values = column_of<double>(rows, [&](const TaskGpuUsage& r) { return r.*column.member; });
        auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, column.spec.name, H5P_DEFAULT));
        hdf5::write_column_block(dataset.get(), H5T_NATIVE_DOUBLE, first, rows.size(), values.data());
    }
}

void read_extra_columns(hid_t tasks, std::uint64_t first, std::vector<TaskGpuUsage>& rows)
{
    for (const auto& column : extra_columns()) {
        if (!hdf5::has_link(tasks, column.spec.name)) continue;
        auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, column.spec.name, H5P_DEFAULT));
        const auto values = hdf5::read_column_block<double>(dataset.get(), H5T_NATIVE_DOUBLE, first, rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) rows[i].*column.member = values[i];
    }
}

}  // namespace

const std::vector<GpuColumn>& gpu_columns()
{
    static const std::vector<GpuColumn> columns{
        {"gpu_mem_peak", "bytes",
         "peak GPU memory of the task's processes, or of the whole device where NVML does not list them (see scope); "
         "-1: not measured"},
        {"gpu_util_mean", "percent", device_note},
        {"gpu_util_peak", "percent", device_note},
        {"gpu_energy_j", "J", device_note},
        {"gpu_temp_max", "degC", "hottest reading of the task's GPU while it ran"},
        {"gpu_xid_events", "1", "NVML Xid critical-error events on the task's GPU while it ran; -1: not watched"}};
    return columns;
}

bool any_gpu_usage(const std::vector<TaskGpuUsage>& rows)
{
    for (const auto& row : rows) {
        if (row.measured() || row.has_gpm() || row.has_energy_or_cost()) return true;
    }
    return false;
}

unsigned gpu_scopes_of(const std::vector<TaskGpuUsage>& rows)
{
    unsigned scopes = 0;
    for (const auto& row : rows) {
        if (row.measured()) scopes |= 1U << static_cast<int>(row.mem_scope);
    }
    return scopes;
}

void write_gpu_block(hid_t tasks, std::uint64_t task_count, std::uint64_t first, const std::vector<TaskGpuUsage>& rows,
                     unsigned scopes)
{
    write_extra_columns(tasks, task_count, first, rows);
    // The six telemetry columns exist once some task was measured (a CPU job with a price has none).
    if (!hdf5::has_link(tasks, gpu_columns()[mem_peak].name) && !any_row(rows, &TaskGpuUsage::measured)) return;
    for (std::size_t c = 0; c < gpu_columns().size(); ++c) {
        if (!hdf5::has_link(tasks, gpu_columns()[c].name)) create(tasks, c, task_count);
    }
    const auto open = [&](std::size_t c) {
        return SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, gpu_columns()[c].name, H5P_DEFAULT));
    };
    const auto n = rows.size();
    const auto doubles = [&](std::size_t c, double TaskGpuUsage::*member) {
        const auto values = column_of<double>(rows, [member](const TaskGpuUsage& r) { return r.*member; });
        hdf5::write_column_block(open(c).get(), H5T_NATIVE_DOUBLE, first, n, values.data());
    };
    const auto mem = column_of<std::int64_t>(rows, [](const TaskGpuUsage& r) { return r.mem_peak; });
    hdf5::write_column_block(open(mem_peak).get(), H5T_NATIVE_INT64, first, n, mem.data());
    doubles(util_mean, &TaskGpuUsage::util_mean);
    doubles(util_peak, &TaskGpuUsage::util_peak);
    doubles(energy_j, &TaskGpuUsage::energy_j);
    doubles(temp_max, &TaskGpuUsage::temp_max);
    const auto xids = column_of<std::int32_t>(rows, [](const TaskGpuUsage& r) { return r.xid_events; });
    hdf5::write_column_block(open(xid_events).get(), H5T_NATIVE_INT32, first, n, xids.data());
    auto memory = open(mem_peak);
    const auto seen = static_cast<unsigned>(hdf5::read_int_attr(memory.get(), "scopes").value_or(0)) | scopes;
    if (seen != 0) {
        hdf5::write_attr(memory.get(), "scopes", static_cast<std::int64_t>(seen));
        hdf5::write_attr(memory.get(), "scope", scope_text(seen));
    }
}

std::vector<TaskGpuUsage> read_gpu_block(hid_t tasks, std::uint64_t first, std::size_t count)
{
    std::vector<TaskGpuUsage> rows(count);
    if (count == 0) return rows;
    read_extra_columns(tasks, first, rows);
    if (!hdf5::has_link(tasks, gpu_columns()[mem_peak].name)) return rows;
    const auto open = [&](std::size_t c) {
        return SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, gpu_columns()[c].name, H5P_DEFAULT));
    };
    const auto mem = hdf5::read_column_block<std::int64_t>(open(mem_peak).get(), H5T_NATIVE_INT64, first, count);
    const auto mean = hdf5::read_column_block<double>(open(util_mean).get(), H5T_NATIVE_DOUBLE, first, count);
    const auto peak = hdf5::read_column_block<double>(open(util_peak).get(), H5T_NATIVE_DOUBLE, first, count);
    const auto energy = hdf5::read_column_block<double>(open(energy_j).get(), H5T_NATIVE_DOUBLE, first, count);
    const auto temp = hdf5::read_column_block<double>(open(temp_max).get(), H5T_NATIVE_DOUBLE, first, count);
    const auto xids = hdf5::read_column_block<std::int32_t>(open(xid_events).get(), H5T_NATIVE_INT32, first, count);
    // The file keeps one scope for the column; a row's own is "measured or not".
    const auto scopes = static_cast<unsigned>(hdf5::read_int_attr(open(mem_peak).get(), "scopes").value_or(0));
    const auto scope = (scopes & (1U << static_cast<int>(GpuMemScope::device))) != 0 ? GpuMemScope::device
                                                                                     : GpuMemScope::process;
    for (std::size_t i = 0; i < count; ++i) {
        auto& row = rows[i];
        row.mem_peak = mem[i];
        row.util_mean = mean[i];
        row.util_peak = peak[i];
        row.energy_j = energy[i];
        row.temp_max = temp[i];
        row.xid_events = xids[i];
        row.mem_scope = mem[i] >= 0 ? scope : GpuMemScope::none;
    }
    return rows;
}

void write_gpu_compound(hid_t file, const char* name, const std::vector<TaskGpuUsage>& rows)
{
    const auto type = compound_type();
    hdf5::write_column(file, name, type.get(), type.get(), rows.data(), rows.size());
}

std::vector<TaskGpuUsage> read_gpu_compound(hid_t file, const char* name, std::size_t count)
{
    if (!hdf5::has_link(file, name)) return std::vector<TaskGpuUsage>(count);
    const auto type = compound_type();
    return hdf5::read_column<TaskGpuUsage>(file, name, type.get());
}

}  // namespace shardrun::io
