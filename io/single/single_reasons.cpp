#include "io/single/single_reasons.hpp"

#include <algorithm>

#include "io/attempt_log.hpp"
#include "io/gather/task_stream.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/task_rows/attempts_group.hpp"
#include "io/task_rows/gpu_columns.hpp"
#include "io/task_rows/tasks_group.hpp"

namespace shardrun::io::single {
namespace {

constexpr const char* old_attempts = "attempts.old";

/**
 * Moves the current /attempts aside as the source of the earlier attempts; returns whether
 * there is one. An `attempts.old` left by a kill during an earlier rewrite is the complete
 * one: the half-written /attempts beside it goes.
 */
bool set_old_attempts_aside(hid_t file)
{
    if (hdf5::has_link(file, old_attempts)) {
        if (hdf5::has_link(file, "attempts")) SHARDRUN_H5_CHECK(H5Ldelete(file, "attempts", H5P_DEFAULT));
        return true;
    }
    if (!hdf5::has_link(file, "attempts")) return false;
    SHARDRUN_H5_CHECK(H5Lmove(file, "attempts", file, old_attempts, H5P_DEFAULT, H5P_DEFAULT));
    return true;
}

/** /tasks/message, created (every row empty, as a master's ok rows) when the file has none yet. */
hdf5::Dataset message_column(hid_t file, std::uint64_t rows, bool& created)
{
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "tasks", H5P_DEFAULT));
    created = !hdf5::has_link(tasks.get(), "message");
    if (!created) return SHARDRUN_H5_OPEN(Dataset, H5Dopen2(tasks.get(), "message", H5P_DEFAULT));
    const auto type = hdf5::vlen_string_type();
    return hdf5::create_column(tasks.get(), "message", type.get(), rows);
}

/**
 * The committed tasks' /tasks/gpu_* values, a block of rows at a time (read, patched, written):
 * the columns are made by the first commit that has a measured task.
 */
void write_gpu_usage(hid_t file, std::uint64_t rows, const TaskReasons& reasons)
{
    if (!any_gpu_usage(reasons.gpu)) return;
    auto tasks = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "tasks", H5P_DEFAULT));
    std::size_t next = 0;
    while (next < reasons.size()) {
        const std::uint64_t first = reasons.task_id[next] / stream_block_rows() * stream_block_rows();
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(stream_block_rows(), rows - first));
        auto block = read_gpu_block(tasks.get(), first, n);
        std::vector<TaskGpuUsage> changed;
        for (; next < reasons.size() && reasons.task_id[next] < first + n; ++next) {
            block[reasons.task_id[next] - first] = reasons.gpu[next];
            changed.push_back(reasons.gpu[next]);
        }
        write_gpu_block(tasks.get(), rows, first, block, gpu_scopes_of(changed));
    }
}

}  // namespace

void write_reasons(const std::string& path, const TaskReasons& reasons)
{
    auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    const std::uint64_t rows = tasks_group_rows(file.get());
    // A commit with no task (a resume of a finished job) has nothing to add once both exist.
    if (reasons.size() == 0 && hdf5::has_link(file.get(), "tasks/message") && hdf5::has_link(file.get(), "attempts") &&
        !hdf5::has_link(file.get(), old_attempts)) {
        return;
    }
    bool created = false;
    auto message = message_column(file.get(), rows, created);
    const bool had_attempts = set_old_attempts_aside(file.get());
    {
        AttemptsWriter attempts(file.get());
        TaskRows block;
        std::size_t next = 0;  // the first of `reasons` not yet placed
        for (std::uint64_t first = 0; first < rows; first += stream_block_rows()) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(stream_block_rows(), rows - first));
            const auto begin = next;
            while (next < reasons.size() && reasons.task_id[next] < first + n) ++next;
            block.assign_pending(first, n);
            if (had_attempts) block.attempt_log = read_attempt_logs(file.get(), first, n, old_attempts);
            for (auto k = begin; k < next; ++k) {
                auto& log = block.attempt_log[reasons.task_id[k] - first];
                log = merge_attempt_logs(log, reasons.attempt_log[k]);
            }
            attempts.append(block);
            // Only blocks that changed are written: a heap object per rewritten row otherwise.
            if (!created && next == begin) continue;
            auto messages = created ? std::vector<std::string>(n) : hdf5::read_strings_block(message.get(), first, n);
            for (auto k = begin; k < next; ++k) messages[reasons.task_id[k] - first] = reasons.message[k];
            hdf5::write_strings_block(message.get(), first, messages);
        }
        // The new group holds every row now. The old one goes before the new `row` dimension
        // is made, so _Netcdf4Dimid does not count up with every commit and a run's file
        // numbers its dimensions as a master does (row first). A kill in between leaves a
        // complete /attempts that only lacks its dimension, which the next commit makes.
        if (had_attempts) SHARDRUN_H5_CHECK(H5Ldelete(file.get(), old_attempts, H5P_DEFAULT));
        attempts.finish();
    }
    write_gpu_usage(file.get(), rows, reasons);
    message.reset();  // else H5Fclose only detaches and a full disk goes unreported
    file.close();
}

}  // namespace shardrun::io::single
