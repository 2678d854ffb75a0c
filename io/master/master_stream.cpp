// The master written a block of task rows at a time: memory independent of the task count.
#include <fcntl.h>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/row_chunks.hpp"
#include "io/hdf5/types.hpp"
#include "io/master/master_file.hpp"
#include "io/task_rows/attempts_group.hpp"
#include "io/task_rows/gpu_columns.hpp"
#include "io/task_rows/usage_columns.hpp"
#include "io/task_rows/label_columns.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::master {
namespace {

/** The open /tasks columns and /results datasets of a master being written. */
struct MasterColumns {
    hdf5::Dataset status, attempts, rank, host, device, start, end, exit_code, message, cpu_time, mem_peak;
    std::vector<hdf5::Dataset> results;
    hdf5::Group tasks;
    std::uint64_t task_count = 0;
    LabelCodes host_codes, device_codes;  ///< host and device are codes plus a label coordinate (label_columns.hpp)
};

MasterColumns create_columns(hid_t file, const std::vector<FieldSpec>& fields, std::uint64_t task_count)
{
    create_result_datasets(file, fields, task_count, true);
    auto tasks = hdf5::ensure_group(file, "tasks");
    const auto status_type = hdf5::status_enum_type();
    const auto string_type = hdf5::vlen_string_type();
    const auto column = [&](const char* name, hid_t type) { return hdf5::create_column(tasks.get(), name, type, task_count); };
    MasterColumns columns{column("status", status_type.get()),  column("attempts", H5T_NATIVE_INT32),
                          column("rank", H5T_NATIVE_INT32),
                          create_code_column(tasks.get(), "host", task_count),
                          create_code_column(tasks.get(), "device", task_count), column("start", H5T_NATIVE_DOUBLE),
                          column("end", H5T_NATIVE_DOUBLE),     column("exit_code", H5T_NATIVE_INT32),
                          column("message", string_type.get()), column(cpu_time_column, H5T_NATIVE_DOUBLE),
                          column(mem_peak_column, H5T_NATIVE_INT64), {}, {}, task_count, {}, {}};
    describe_usage_columns(tasks.get());
    hdf5::write_attr(columns.status.get(), "values", std::string("pending=0 ok=1 failed=2 skipped=3"));
    columns.tasks = std::move(tasks);
    for (const auto& field : fields) {
        columns.results.push_back(
            SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file, ("results/" + field.name).c_str(), H5P_DEFAULT)));
    }
    return columns;
}

void write_block(MasterColumns& columns, const std::vector<FieldSpec>& fields, std::uint64_t first, const TaskRows& block,
                 const TaskStream& stream, const std::vector<bool>& per_row)
{
    const auto n = block.size();
    const auto status_type = hdf5::status_enum_type();
    hdf5::write_column_block(columns.status.get(), status_type.get(), first, n, block.status.data());
    hdf5::write_column_block(columns.attempts.get(), H5T_NATIVE_INT32, first, n, block.attempts.data());
    hdf5::write_column_block(columns.rank.get(), H5T_NATIVE_INT32, first, n, block.rank.data());
    write_codes_block(columns.host.get(), columns.host_codes, first, block.host);
    write_codes_block(columns.device.get(), columns.device_codes, first, block.device);
    hdf5::write_column_block(columns.start.get(), H5T_NATIVE_DOUBLE, first, n, block.start.data());
    hdf5::write_column_block(columns.end.get(), H5T_NATIVE_DOUBLE, first, n, block.end.data());
    hdf5::write_column_block(columns.exit_code.get(), H5T_NATIVE_INT32, first, n, block.exit_code.data());
    hdf5::write_strings_block(columns.message.get(), first, block.message);
    hdf5::write_column_block(columns.cpu_time.get(), H5T_NATIVE_DOUBLE, first, n, block.cpu_time.data());
    hdf5::write_column_block(columns.mem_peak.get(), H5T_NATIVE_INT64, first, n, block.mem_peak.data());
    // Telemetry columns appear with the first measured block; earlier rows keep the fill ("not measured").
    if (any_gpu_usage(block.gpu)) write_gpu_block(columns.tasks.get(), columns.task_count, first, block.gpu, gpu_scopes_of(block.gpu));
    for (std::size_t f = 0; f < fields.size(); ++f) {
        if (!per_row[f]) {
            if (n > 0) hdf5::write_field_block(columns.results[f].get(), fields[f], first, n, block.fields[f].data());
            continue;
        }
        // Large rows: each straight from where its segment was loaded, one chunk. A task without a
        // result (not ok) gets none: its row reads as the fill value (README: "Tasks that failed ...").
        const auto& refs = stream.row_refs(f);
        for (std::size_t k = 0; k < n; ++k) {
            if (refs[k] == nullptr || block.status[k] != static_cast<std::int8_t>(TaskStatus::ok)) continue;
            hdf5::write_row_chunk(columns.results[f].get(), fields[f], first + k, refs[k]);
        }
    }
}

/** The file descriptor of `file` when it is a POSIX (sec2) file, else -1. */
int posix_descriptor(hid_t file)
{
    auto access = SHARDRUN_H5_OPEN(PropList, H5Fget_access_plist(file));
    void* handle = nullptr;
    if (H5Pget_driver(access.get()) != H5FD_SEC2 || H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle) return -1;
    return *static_cast<int*>(handle);
}

/**
 * Starts the disk on what was written so far and returns at once: it writes while the next
 * blocks are read and assembled, and publish()'s fsync is left little to wait for.
 */
void start_writeback(int descriptor)
{
#ifdef __linux__
    if (descriptor >= 0) ::sync_file_range(descriptor, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
}

}  // namespace

StatusCounts write_master_streamed(const fs::path& target, const MasterInfo& info, TaskStream& stream,
                                  std::string_view retry)
{
    const auto task_count = info.metadata.task_count;
    StatusCounts counts;
    write_master_file(target, [&](hid_t file) {
        {
            auto columns = create_columns(file, info.fields, task_count);
            AttemptsWriter attempts(file);
            const int descriptor = posix_descriptor(file);
            std::vector<bool> per_row;
            for (const auto& field : info.fields) per_row.push_back(hdf5::chunked_per_row(field));
            stream.reference_fields(per_row);
            TaskRows block;
            while (stream.next(block)) {
                write_block(columns, info.fields, stream.first_id(), block, stream, per_row);
                attempts.append(block);
                counts.add(block);
                start_writeback(descriptor);
            }
            attempts.finish();
            // After /attempts' dimension, as every path does (a single file has it from its first
            // commit): the same dimension ids in every master.
            write_code_labels(file, columns.tasks.get(), "host", columns.host_codes);
            write_code_labels(file, columns.tasks.get(), "device", columns.device_codes);
            columns = MasterColumns{};
        }
        finish_master_file(file, info, task_count, counts, info.complete && counts.pending == 0);
    }, retry);
    return counts;
}

}  // namespace shardrun::io::master
