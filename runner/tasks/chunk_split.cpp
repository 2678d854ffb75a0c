// Finding the rows of a data chunk that make its worker task fail (issue 35, point 4): one
// poison input must not cost the other rows of its chunk.
#include "runner/tasks/chunk_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <csignal>
#include <cstring>
#include <optional>

namespace shardrun::tasks {
namespace {

constexpr int exit_timeout = 124;

bool stopping(const TaskContext& context) { return context.stop != nullptr && context.stop->load(); }

/**
 * A worker killed by a stop or drain signal: Slurm's scancel reaches the worker with its rank,
 * and the worker may die before the rank knows of the stop. No row's doing.
 */
bool stop_signal_exit(int exit_code)
{
    return exit_code == 128 + SIGTERM || exit_code == 128 + SIGINT || exit_code == 128 + SIGUSR1;
}

/** `failed` may be its rows' doing: its worker died on it or answered failed, and nothing else cut it short. */
bool row_caused(const TaskOutcome& failed, const TaskContext& context)
{
    return failed.status != io::TaskStatus::ok && failed.exit_code != 0 && failed.exit_code != exit_timeout &&
           !stop_signal_exit(failed.exit_code) && context.group.size == 1 && !stopping(context);
}

/** The search over one chunk: what it assembled, what it found, what it may still spend. */
class ChunkSplit {
public:
    ChunkSplit(const TaskContext& context, const std::vector<io::FieldSpec>& fields, const RangeRun& run_range)
        : context_(context), fields_(fields), run_range_(run_range), part_(context), first_(context.range->start)
    {
        const auto rows = context.range->end - first_;
        // 2 runs (both halves) per level on the way down to each failing row.
        runs_left_ = 2 * static_cast<int>(std::bit_width(rows - 1)) * max_failing_rows_per_chunk;
        values_.resize(fields.size());
        for (std::size_t f = 0; f < fields.size(); ++f) io::append_fill(values_[f], fields[f], 1);
    }

    /** Splits [start, end), whose run failed with `failed`. */
    void narrow(std::uint64_t start, std::uint64_t end, const TaskOutcome& failed)
    {
        if (end - start == 1) {
            found_.push_back(io::RowFailure{start, failed.exit_code, failed.message});
            if (found_.size() > static_cast<std::size_t>(max_failing_rows_per_chunk)) {
                give_up(failed, fmt::format("more than {} of its rows failed alone", max_failing_rows_per_chunk));
            }
            return;
        }
        const auto middle = start + (end - start) / 2;
        for (const auto [from, to] : {std::pair{start, middle}, std::pair{middle, end}}) {
            if (ended_) return;
            if (runs_left_-- <= 0) return give_up(failed, "splitting it ran out of its runs");
            part_.range = job::DataRange{from, to};
            auto outcome = run_range_(part_);
            if (outcome.status == io::TaskStatus::ok) {
                take_rows(outcome.values, from, to);
            } else if (row_caused(outcome, part_)) {
                narrow(from, to, outcome);
            } else {
                give_up(outcome, fmt::format("rows [{}, {}) failed otherwise", from, to));
            }
        }
    }

    TaskOutcome result()
    {
        if (ended_) return std::move(*ended_);
        TaskOutcome outcome;
        outcome.values = std::move(values_);
        if (found_.empty()) return outcome;  // the failure did not come back: every row has its result
        const auto rows = context_.range->end - first_;
        const auto& row = found_.front();
        outcome.status = io::TaskStatus::failed;
        outcome.exit_code = row.exit_code;
        outcome.message = fmt::format("{} of its {} rows failed (row {}: {}); the other {} rows' results are written, "
                                      "the failed rows are in /attempts/row_failures",
                                      found_.size(), rows, row.item, row.reason, rows - found_.size());
        outcome.row_failures = std::move(found_);
        return outcome;
    }

private:
    void take_rows(const io::TaskValues& part, std::uint64_t from, std::uint64_t to)
    {
        for (std::size_t f = 0; f < fields_.size(); ++f) {
            if (!fields_[f].item_rows || part.size() != fields_.size()) continue;
            const auto row_bytes = fields_[f].bytes() / fields_[f].shape[0];
            const auto bytes = static_cast<std::size_t>(to - from) * row_bytes;
            if (part[f].size() < bytes) continue;
            std::memcpy(values_[f].data() + (from - first_) * row_bytes, part[f].data(), bytes);
        }
    }

    void give_up(const TaskOutcome& outcome, const std::string& why)
    {
        if (ended_) return;
        ended_ = TaskOutcome::failure(outcome.exit_code, fmt::format("{} (the chunk was split to find its failing rows, "
                                                                     "but {})", outcome.message, why));
    }

    const TaskContext& context_;
    const std::vector<io::FieldSpec>& fields_;
    const RangeRun& run_range_;
    TaskContext part_;
    std::uint64_t first_;
    int runs_left_ = 0;
    io::TaskValues values_;
    std::vector<io::RowFailure> found_;
    std::optional<TaskOutcome> ended_;
};

}  // namespace

bool may_split(const TaskOutcome& failed, const TaskContext& context, const std::vector<io::FieldSpec>& fields)
{
    const bool has_rows = std::any_of(fields.begin(), fields.end(), [](const auto& f) { return f.item_rows; });
    return row_caused(failed, context) && has_rows && context.range && context.range->end - context.range->start > 1;
}

TaskOutcome split_failed_chunk(const TaskContext& context, const std::vector<io::FieldSpec>& fields,
                               const TaskOutcome& failed, const RangeRun& run_range)
{
    ChunkSplit split(context, fields, run_range);
    split.narrow(context.range->start, context.range->end, failed);
    return split.result();
}

}  // namespace shardrun::tasks
