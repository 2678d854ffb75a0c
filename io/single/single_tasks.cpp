// The /tasks columns of a single-layout file: created filled with pending rows, written per commit.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "io/gather/task_stream.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/types.hpp"
#include "io/single/row_selection.hpp"
#include "io/task_rows/usage_columns.hpp"
#include "io/single/single_sink.hpp"
#include "io/task_rows/label_columns.hpp"

namespace shardrun::io::single {
namespace {

void create_column(hid_t group, const char* name, hid_t type, const void* fill, std::uint64_t task_count)
{
    const hsize_t extent = task_count;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, nullptr));
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_CREATE));
    SHARDRUN_H5_CHECK(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY));
    SHARDRUN_H5_CHECK(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_ALLOC));
    SHARDRUN_H5_CHECK(H5Pset_fill_value(dcpl.get(), type, fill));
    hdf5::Dataset(SHARDRUN_H5_CHECK(H5Dcreate2(group, name, type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT)));
}

std::vector<char> fixed_strings(const std::vector<std::string>& values, const std::vector<std::size_t>& order)
{
    std::vector<char> out(order.size() * fixed_string_bytes, '\0');
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto& text = values[order[i]];
        std::memcpy(out.data() + i * fixed_string_bytes, text.data(), std::min(text.size(), fixed_string_bytes - 1));
    }
    return out;
}

template <typename T>
void write_column_rows(hid_t group, const char* name, hid_t type, const std::vector<T>& column,
                       const std::vector<std::uint64_t>& ids, const std::vector<std::size_t>& order, const Collective& transfer)
{
    std::vector<T> sorted(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = column[order[i]];
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name, H5P_DEFAULT));
    write_rows(dataset.get(), type, {}, ids, order, sorted.data(), transfer);
}

/**
 * Rewrites /tasks/<name> with its values, as fixed-length strings (`fixed`: a running file)
 * or as codes with a label coordinate (a finished one, as a master: label_columns.hpp), a
 * block of rows at a time (a whole column of std::string would cost ~40 bytes per task).
 */
void rewrite_strings(hid_t file, hid_t tasks, const char* name, bool fixed)
{
    {
        // A deleted dataset still listed by its scale would leave a dangling reference.
        auto old = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, name, H5P_DEFAULT));
        hdf5::detach_dimension_scales(old.get());
    }
    const std::string old_name = std::string(name) + ".old";
    SHARDRUN_H5_CHECK(H5Lmove(tasks, name, tasks, old_name.c_str(), H5P_DEFAULT, H5P_DEFAULT));
    const std::uint64_t rows = hdf5::column_length(tasks, old_name);
    const auto type = hdf5::fixed_string_type(fixed_string_bytes);
    if (fixed) {
        const char no_text[fixed_string_bytes] = {};
        create_column(tasks, name, type.get(), no_text, rows);
    } else {
        create_code_column(tasks, name, rows);
    }
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks, name, H5P_DEFAULT));
    LabelCodes codes;
    for (std::uint64_t first = 0; first < rows; first += stream_block_rows()) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(stream_block_rows(), rows - first));
        const auto values = read_text_column(tasks, old_name, first, n);
        if (!fixed) {
            write_codes_block(dataset.get(), codes, first, values);
            continue;
        }
        std::vector<std::size_t> order(values.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        hdf5::write_column_block(dataset.get(), type.get(), first, n, fixed_strings(values, order).data());
    }
    SHARDRUN_H5_CHECK(H5Ldelete(tasks, old_name.c_str(), H5P_DEFAULT));
    const auto label_name = label_coordinate_name(name);
    if (!fixed) {
        write_code_labels(file, tasks, name, codes);
    } else if (hdf5::has_link(tasks, label_name)) {
        SHARDRUN_H5_CHECK(H5Ldelete(tasks, label_name.c_str(), H5P_DEFAULT));
    }
}

void ensure_usage_columns(hid_t tasks, std::uint64_t task_count)
{
    // A file begun before these columns existed (then resumed) gets them here, unmeasured.
    if (hdf5::has_link(tasks, cpu_time_column)) return;
    const TaskRecord unmeasured;
    create_column(tasks, cpu_time_column, H5T_NATIVE_DOUBLE, &unmeasured.cpu_time, task_count);
    create_column(tasks, mem_peak_column, H5T_NATIVE_INT64, &unmeasured.mem_peak, task_count);
    describe_usage_columns(tasks);
}

}  // namespace

void set_task_string_form(hid_t file, bool fixed)
{
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "tasks", H5P_DEFAULT));
    for (const char* name : {"host", "device"}) {
        bool done = false;
        if (is_code_column(tasks.get(), name)) {
            done = !fixed;
        } else {
            auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks.get(), name, H5P_DEFAULT));
            auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
            done = fixed && SHARDRUN_H5_CHECK(H5Tis_variable_str(type.get())) == 0;
        }
        if (!done) rewrite_strings(file, tasks.get(), name, fixed);
    }
}

void create_task_columns(hid_t file, std::uint64_t task_count)
{
    auto tasks = hdf5::ensure_group(file, "tasks");
    const auto status_type = hdf5::status_enum_type();
    const auto string_type = hdf5::fixed_string_type(fixed_string_bytes);
    const std::int8_t pending = 0;
    const std::int32_t zero = 0, no_rank = -1;
    const double no_time = 0.0;
    const char no_text[fixed_string_bytes] = {};
    create_column(tasks.get(), "status", status_type.get(), &pending, task_count);
    create_column(tasks.get(), "attempts", H5T_NATIVE_INT32, &zero, task_count);
    create_column(tasks.get(), "rank", H5T_NATIVE_INT32, &no_rank, task_count);
    create_column(tasks.get(), "host", string_type.get(), no_text, task_count);
    create_column(tasks.get(), "device", string_type.get(), no_text, task_count);
    create_column(tasks.get(), "start", H5T_NATIVE_DOUBLE, &no_time, task_count);
    create_column(tasks.get(), "end", H5T_NATIVE_DOUBLE, &no_time, task_count);
    create_column(tasks.get(), "exit_code", H5T_NATIVE_INT32, &zero, task_count);
    ensure_usage_columns(tasks.get(), task_count);
}

void SingleSink::write_tasks(const std::vector<std::size_t>& order, const Collective& transfer)
{
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file_.get(), "tasks", H5P_DEFAULT));
    const auto& ids = buffer_.task_id;
    const auto string_type = hdf5::fixed_string_type(fixed_string_bytes);
    // status last: a row reads ok only once everything else of it is on disk.
    write_column_rows(tasks.get(), "attempts", H5T_NATIVE_INT32, buffer_.attempts, ids, order, transfer);
    write_column_rows(tasks.get(), "rank", H5T_NATIVE_INT32, buffer_.rank, ids, order, transfer);
    const auto hosts = fixed_strings(buffer_.host, order);
    auto host = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks.get(), "host", H5P_DEFAULT));
    write_rows(host.get(), string_type.get(), {}, ids, order, hosts.data(), transfer);
    const auto devices = fixed_strings(buffer_.device, order);
    auto device = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks.get(), "device", H5P_DEFAULT));
    write_rows(device.get(), string_type.get(), {}, ids, order, devices.data(), transfer);
    write_column_rows(tasks.get(), "start", H5T_NATIVE_DOUBLE, buffer_.start, ids, order, transfer);
    write_column_rows(tasks.get(), "end", H5T_NATIVE_DOUBLE, buffer_.end, ids, order, transfer);
    write_column_rows(tasks.get(), "exit_code", H5T_NATIVE_INT32, buffer_.exit_code, ids, order, transfer);
    ensure_usage_columns(tasks.get(), hdf5::column_length(tasks.get(), "status"));
    write_column_rows(tasks.get(), cpu_time_column, H5T_NATIVE_DOUBLE, buffer_.cpu_time, ids, order, transfer);
    write_column_rows(tasks.get(), mem_peak_column, H5T_NATIVE_INT64, buffer_.mem_peak, ids, order, transfer);
    const auto status_type = hdf5::status_enum_type();
    write_column_rows(tasks.get(), "status", status_type.get(), buffer_.status, ids, order, transfer);
}

}  // namespace shardrun::io::single
