#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace shardrun::io {

/** The values of one table column, one per task (the stored type: float, integer or text). */
using ColumnValues = std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::string>>;

/**
 * Where a column of the table comes from. `record` is a /tasks column other than status (how
 * the task ran: attempts, rank, host, start, end, exit_code, message, ...) or the derived
 * `seconds`; `shardrun table` prints those only when --columns names them.
 */
enum class ColumnRole { task, param, result, status, record };

/** One column of the results table. */
struct TableColumn {
    std::string name;
    ColumnRole role = ColumnRole::param;
    ColumnValues values;
    /** float32 results: printed with float precision, so 0.1f reads "0.1", not "0.10000000149011612". */
    bool single_precision = false;
    /** Per row, true where the cell has no value (a derived view, e.g. a pivot); empty: none is missing. */
    std::vector<bool> missing;
    /** Unix seconds (CF units `seconds since 1970-01-01...`): printed as ISO 8601 UTC, compared as numbers. */
    bool is_time = false;
    /** A bool result (uint8 with dtype="bool"): held as 0/1, printed as false/true. */
    bool is_bool = false;

    bool is_text() const noexcept { return std::holds_alternative<std::vector<std::string>>(values); }
    bool is_float() const noexcept { return std::holds_alternative<std::vector<double>>(values); }
};

/**
 * One row per task of a master results file: the task id, every /params column, every
 * scalar /results field (in the job's declared order), the task's status, then every other
 * 1-D /tasks column (read generically, in name order) and `seconds` = end - start. Result
 * cells of tasks that have no result (status other than ok) are missing, not fill values;
 * so are start, end and seconds of a task that never started. A param or result named like
 * a /tasks column keeps its name and the /tasks column is called `tasks/<name>`.
 * Kept as plain columns so that other views (`shardrun table --pivot`, which turns
 * `operation x device` rows into `operation, CPU s, GPU s, speedup`) are built from it.
 */
struct ResultsTable {
    std::string path;
    std::uint64_t task_count = 0;
    bool complete = false;
    std::vector<TableColumn> columns;     ///< task, params..., results..., status
    std::vector<bool> has_result;         ///< per task: status is ok
    std::vector<std::string> non_scalar;  ///< result fields left out (not one value per task)

    /** False for a result cell of a task without a result. */
    bool present(std::size_t column, std::size_t row) const noexcept
    {
        const auto& c = columns[column];
        if (!c.missing.empty() && c.missing[row]) return false;
        return c.role != ColumnRole::result || has_result[row];
    }
    /** Index of the column called `name`, or -1. */
    int find(const std::string& name) const noexcept;
    std::vector<std::string> names() const;
};

/**
 * Checks that the master file at `path` exists.
 * @throws OutputError  no such file, or only the shards of a run not consolidated yet (names `status` and `merge`)
 */
void require_master(const std::string& path);

/**
 * Reads the master file at `path`. Only the master is read: an output whose run has not
 * written it yet (shards only) is an OutputError saying so and naming `status` and `merge`.
 * @throws OutputError  no such file, not consolidated yet, or not a shardrun results file
 */
ResultsTable read_results_table(const std::string& path);

}  // namespace shardrun::io
