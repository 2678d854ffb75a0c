#include "io/task_rows/tasks_group.hpp"

#include <numeric>

#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/task_rows/attempts_group.hpp"
#include "io/task_rows/gpu_columns.hpp"
#include "io/task_rows/label_columns.hpp"
#include "io/task_rows/usage_columns.hpp"

namespace shardrun::io {

TaskRows read_tasks_group(hid_t file, std::uint64_t first, std::size_t count)
{
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "tasks", H5P_DEFAULT));
    const auto open = [&](const char* name) { return SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks.get(), name, H5P_DEFAULT)); };
    const auto status_type = hdf5::status_enum_type();
    TaskRows rows;
    rows.task_id.resize(count);
    std::iota(rows.task_id.begin(), rows.task_id.end(), first);
    rows.status = hdf5::read_column_block<std::int8_t>(open("status").get(), status_type.get(), first, count);
    rows.attempts = hdf5::read_column_block<std::int32_t>(open("attempts").get(), H5T_NATIVE_INT32, first, count);
    rows.rank = hdf5::read_column_block<std::int32_t>(open("rank").get(), H5T_NATIVE_INT32, first, count);
    rows.host = read_text_column(tasks.get(), "host", first, count);
    rows.device = read_text_column(tasks.get(), "device", first, count);
    rows.start = hdf5::read_column_block<double>(open("start").get(), H5T_NATIVE_DOUBLE, first, count);
    rows.end = hdf5::read_column_block<double>(open("end").get(), H5T_NATIVE_DOUBLE, first, count);
    rows.exit_code = hdf5::read_column_block<std::int32_t>(open("exit_code").get(), H5T_NATIVE_INT32, first, count);
    // A file written before /tasks/message and /attempts existed (or a single file before its
    // first commit) has none.
    rows.message = hdf5::has_link(tasks.get(), "message") ? hdf5::read_strings_block(open("message").get(), first, count)
                                                           : std::vector<std::string>(count);
    rows.attempt_log = read_attempt_logs(file, first, count);
    rows.gpu = read_gpu_block(tasks.get(), first, count);  // unmeasured rows where the file has no telemetry
    read_usage_block(tasks.get(), first, count, rows);
    return rows;
}

std::uint64_t tasks_group_rows(hid_t file)
{
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "tasks", H5P_DEFAULT));
    return hdf5::column_length(tasks.get(), "status");
}

}  // namespace shardrun::io
