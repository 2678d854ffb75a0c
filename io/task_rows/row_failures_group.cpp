#include "io/task_rows/row_failures_group.hpp"

#include <algorithm>
#include <array>

#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/types.hpp"
#include "io/row_failures.hpp"

namespace shardrun::io {
namespace {

constexpr const char* group_name = "row_failures";
constexpr std::array<const char*, 4> column_names{"item", "task", "exit_code", "reason"};

}  // namespace

void RowFailuresWriter::append(const TaskRows& block)
{
    std::vector<std::uint64_t> item, task;
    std::vector<std::int32_t> exit_code;
    std::vector<std::string> reason;
    for (std::size_t i = 0; i < block.size(); ++i) {
        if (block.attempt_log[i].empty()) continue;
        for (auto& row : decode_row_failures(block.attempt_log[i])) {
            item.push_back(row.item);
            task.push_back(block.task_id[i]);
            exit_code.push_back(row.exit_code);
            reason.push_back(std::move(row.reason));
        }
    }
    const auto n = item.size();
    if (n == 0) return;
    if (!group_) {
        group_ = hdf5::ensure_group(attempts_, group_name);
        const auto text = hdf5::vlen_string_type();
        const std::array<hid_t, 4> types{H5T_STD_U64LE, H5T_STD_U64LE, H5T_STD_I32LE, text.get()};
        for (std::size_t c = 0; c < column_names.size(); ++c) {
            columns_.push_back(hdf5::create_growing_column(group_->get(), column_names[c], types[c]));
        }
    }
    hdf5::append_column_block(columns_[0].get(), H5T_NATIVE_UINT64, rows_, n, item.data());
    hdf5::append_column_block(columns_[1].get(), H5T_NATIVE_UINT64, rows_, n, task.data());
    hdf5::append_column_block(columns_[2].get(), H5T_NATIVE_INT32, rows_, n, exit_code.data());
    const hsize_t extent = rows_ + n;
    SHARDRUN_H5_CHECK(H5Dset_extent(columns_[3].get(), &extent));
    hdf5::write_strings_block(columns_[3].get(), rows_, reason);
    rows_ += n;
}

void RowFailuresWriter::finish()
{
    if (!group_) return;
    auto dimension = hdf5::create_bare_dimension(file_, group_->get(), "failure", rows_);
    for (auto& column : columns_) hdf5::attach_dimension_scale(column.get(), dimension.get(), 0);
    columns_.clear();
}

std::vector<std::string> read_row_failure_lines(hid_t file, const std::string& attempts_group, std::uint64_t first,
                                                std::size_t count)
{
    std::vector<std::string> lines(count);
    const auto path = attempts_group + "/" + group_name;
    if (count == 0 || !hdf5::has_link(file, path + "/task")) return lines;
    auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, path.c_str(), H5P_DEFAULT));
    const auto open = [&](const char* name) { return SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group.get(), name, H5P_DEFAULT)); };
    // Few rows fail: the whole table is read, and only the block's tasks are kept.
    const auto task = hdf5::read_column<std::uint64_t>(group.get(), "task", H5T_NATIVE_UINT64);
    const auto from = static_cast<std::size_t>(std::lower_bound(task.begin(), task.end(), first) - task.begin());
    const auto to = static_cast<std::size_t>(std::lower_bound(task.begin(), task.end(), first + count) - task.begin());
    if (from == to) return lines;
    const auto n = to - from;
    const auto item = hdf5::read_column_block<std::uint64_t>(open("item").get(), H5T_NATIVE_UINT64, from, n);
    const auto exit_code = hdf5::read_column_block<std::int32_t>(open("exit_code").get(), H5T_NATIVE_INT32, from, n);
    const auto reason = hdf5::read_strings_block(open("reason").get(), from, n);
    for (std::size_t k = 0; k < n; ++k) {
        lines[static_cast<std::size_t>(task[from + k] - first)] +=
            encode_row_failures({RowFailure{item[k], exit_code[k], reason[k]}});
    }
    return lines;
}

}  // namespace shardrun::io
