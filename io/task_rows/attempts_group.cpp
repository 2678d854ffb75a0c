#include "io/task_rows/attempts_group.hpp"

#include <algorithm>
#include <array>

#include "io/attempt_log.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/types.hpp"

namespace shardrun::io {
namespace {

constexpr std::array<const char*, 9> column_names{"task", "attempt", "exit_code", "start", "end",
                                                  "rank", "message", "host", "interrupted"};
constexpr const char* time_units = "seconds since 1970-01-01T00:00:00Z";

/** The attempts of `block` as columns; the texts packed, none copied into a string of its own. */
struct Columns {
    std::vector<std::uint64_t> task;
    std::vector<std::int32_t> attempt, exit_code, rank;
    std::vector<double> start, end;
    hdf5::PackedTexts message, host;
    std::vector<std::int8_t> interrupted;
};

Columns columns_of(const TaskRows& block)
{
    Columns out;
    for (std::size_t i = 0; i < block.size(); ++i) {
        std::string_view log = block.attempt_log[i];
        for (AttemptView a; next_attempt(log, a);) {
            out.task.push_back(block.task_id[i]);
            out.attempt.push_back(a.attempt);
            out.exit_code.push_back(a.exit_code);
            out.start.push_back(a.start);
            out.end.push_back(a.end);
            out.rank.push_back(a.rank);
            out.message.push_back(a.message);
            out.host.push_back(a.host);
            out.interrupted.push_back(a.interrupted ? 1 : 0);
        }
    }
    return out;
}

}  // namespace

AttemptsWriter::AttemptsWriter(hid_t file)
    : file_(file), group_(hdf5::ensure_group(file, "attempts")), row_failures_(file, group_.get())
{
    const auto text = hdf5::vlen_string_type();
    const std::array<hid_t, 9> types{H5T_STD_U64LE,  H5T_STD_I32LE, H5T_STD_I32LE, H5T_IEEE_F64LE, H5T_IEEE_F64LE,
                                     H5T_STD_I32LE,  text.get(),    text.get(),    H5T_STD_I8LE};
    for (std::size_t c = 0; c < column_names.size(); ++c) {
        columns_.push_back(hdf5::create_growing_column(group_.get(), column_names[c], types[c]));
    }
    for (const std::size_t c : {3, 4}) hdf5::write_attr(columns_[c].get(), "units", std::string(time_units));
}

void AttemptsWriter::append(const TaskRows& block)
{
    row_failures_.append(block);
    const auto add = columns_of(block);
    const auto n = add.task.size();
    if (n == 0) return;
    const hsize_t extent = rows_ + n;
    for (auto& column : columns_) SHARDRUN_H5_CHECK(H5Dset_extent(column.get(), &extent));
    hdf5::write_column_block(columns_[0].get(), H5T_NATIVE_UINT64, rows_, n, add.task.data());
    hdf5::write_column_block(columns_[1].get(), H5T_NATIVE_INT32, rows_, n, add.attempt.data());
    hdf5::write_column_block(columns_[2].get(), H5T_NATIVE_INT32, rows_, n, add.exit_code.data());
    hdf5::write_column_block(columns_[3].get(), H5T_NATIVE_DOUBLE, rows_, n, add.start.data());
    hdf5::write_column_block(columns_[4].get(), H5T_NATIVE_DOUBLE, rows_, n, add.end.data());
    hdf5::write_column_block(columns_[5].get(), H5T_NATIVE_INT32, rows_, n, add.rank.data());
    hdf5::write_strings_block(columns_[6].get(), rows_, add.message);
    hdf5::write_strings_block(columns_[7].get(), rows_, add.host);
    hdf5::write_column_block(columns_[8].get(), H5T_NATIVE_INT8, rows_, n, add.interrupted.data());
    rows_ += n;
}

void AttemptsWriter::finish()
{
    auto row = hdf5::create_bare_dimension(file_, group_.get(), "row", rows_);
    for (auto& column : columns_) hdf5::attach_dimension_scale(column.get(), row.get(), 0);
    columns_.clear();
    row_failures_.finish();
}

namespace {

std::vector<std::string> read_attempts_only(hid_t file, std::uint64_t first, std::size_t count,
                                            const std::string& group_name)
{
    std::vector<std::string> logs(count);
    if (count == 0 || !hdf5::has_link(file, group_name + "/task")) return logs;
    auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, group_name.c_str(), H5P_DEFAULT));
    const auto open = [&](const char* name) { return SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group.get(), name, H5P_DEFAULT)); };
    auto task = open("task");
    const std::uint64_t rows = hdf5::dataset_length(task.get());
    // Rows are sorted by task: two binary searches find the block's rows, read one element at a time.
    const auto lower_bound = [&](std::uint64_t id) {
        std::uint64_t low = 0, high = rows;
        while (low < high) {
            const auto mid = low + (high - low) / 2;
            std::uint64_t value = 0;
            hdf5::read_column_block(task.get(), H5T_NATIVE_UINT64, mid, 1, &value);
            if (value < id) low = mid + 1; else high = mid;
        }
        return low;
    };
    const auto from = lower_bound(first);
    const auto n = static_cast<std::size_t>(lower_bound(first + count) - from);
    if (n == 0) return logs;
    const auto ids = hdf5::read_column_block<std::uint64_t>(task.get(), H5T_NATIVE_UINT64, from, n);
    const auto attempt = hdf5::read_column_block<std::int32_t>(open("attempt").get(), H5T_NATIVE_INT32, from, n);
    const auto exit_code = hdf5::read_column_block<std::int32_t>(open("exit_code").get(), H5T_NATIVE_INT32, from, n);
    const auto start = hdf5::read_column_block<double>(open("start").get(), H5T_NATIVE_DOUBLE, from, n);
    const auto end = hdf5::read_column_block<double>(open("end").get(), H5T_NATIVE_DOUBLE, from, n);
    const auto rank = hdf5::read_column_block<std::int32_t>(open("rank").get(), H5T_NATIVE_INT32, from, n);
    const auto message = hdf5::read_strings_block(open("message").get(), from, n);
    // host and interrupted came later: a file written before them reads as unknown host, not interrupted.
    const bool has_host = hdf5::has_link(group.get(), "host") && hdf5::has_link(group.get(), "interrupted");
    const auto host = has_host ? hdf5::read_strings_block(open("host").get(), from, n) : std::vector<std::string>(n);
    const auto interrupted = has_host ? hdf5::read_column_block<std::int8_t>(open("interrupted").get(), H5T_NATIVE_INT8, from, n)
                                      : std::vector<std::int8_t>(n, 0);
    for (std::size_t i = 0; i < n;) {
        std::vector<AttemptRecord> attempts;
        std::size_t j = i;
        for (; j < n && ids[j] == ids[i]; ++j) {
            attempts.push_back(AttemptRecord{attempt[j], exit_code[j], start[j], end[j], rank[j], message[j], host[j],
                                             interrupted[j] != 0});
        }
        logs[static_cast<std::size_t>(ids[i] - first)] = encode_attempts(attempts);
        i = j;
    }
    return logs;
}

}  // namespace

std::vector<std::string> read_attempt_logs(hid_t file, std::uint64_t first, std::size_t count,
                                           const std::string& group_name)
{
    auto logs = read_attempts_only(file, first, count, group_name);
    const auto rows = read_row_failure_lines(file, group_name, first, count);
    for (std::size_t i = 0; i < count; ++i) logs[i] += rows[i];
    return logs;
}

}  // namespace shardrun::io
