#include "runner/cli/table_pivot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "runner/cli/table_query.hpp"
#include "runner/errors.hpp"

namespace shardrun::cli {
namespace {

/** A cell as text: the pivot's column names and the keys that group the other params. */
std::string cell_text(const io::TableColumn& column, std::size_t row)
{
    return std::visit([row](const auto& values) { return fmt::format("{}", values[row]); }, column.values);
}

double cell_number(const io::TableColumn& column, std::size_t row)
{
    if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&column.values)) return static_cast<double>((*ints)[row]);
    return std::get<std::vector<double>>(column.values)[row];
}

/** `column` restricted to `rows`, in that order. */
io::TableColumn pick(const io::TableColumn& column, const std::vector<std::size_t>& rows)
{
    io::TableColumn picked{column.name, column.role, {}, column.single_precision, {}};
    picked.values = std::visit(
        [&rows](const auto& values) -> io::ColumnValues {
            std::decay_t<decltype(values)> out;
            for (const auto row : rows) out.push_back(values[row]);
            return out;
        },
        column.values);
    return picked;
}

/** The pivot's rows: the first task of each combination of the other params, and every task's row index. */
struct Grouping {
    std::vector<std::size_t> first_task;
    std::vector<std::size_t> row_of;  ///< parallel to the tasks given
};

Grouping group_tasks(const io::ResultsTable& table, const std::vector<std::size_t>& keys, const std::vector<std::size_t>& tasks)
{
    Grouping grouping;
    std::map<std::vector<std::string>, std::size_t> seen;
    for (const auto task : tasks) {
        std::vector<std::string> key;
        for (const auto k : keys) key.push_back(cell_text(table.columns[k], task));
        const auto [it, added] = seen.emplace(std::move(key), grouping.first_task.size());
        if (added) grouping.first_task.push_back(task);
        grouping.row_of.push_back(it->second);
    }
    return grouping;
}

std::string cell_name(const io::ResultsTable& table, const std::vector<std::size_t>& keys, std::size_t pivot,
                      std::size_t task)
{
    std::vector<std::string> parts;
    for (const auto k : keys) parts.push_back(table.columns[k].name + "=" + cell_text(table.columns[k], task));
    parts.push_back(table.columns[pivot].name + "=" + cell_text(table.columns[pivot], task));
    return fmt::format("{}", fmt::join(parts, ", "));
}

io::TableColumn number_column(std::string name, std::size_t rows, bool single_precision)
{
    io::TableColumn column{std::move(name), io::ColumnRole::result, std::vector<double>(rows, 0.0), single_precision, {}};
    column.missing.assign(rows, true);
    return column;
}

/** Where the pivot reads: the pivot param, the value column and the other params (the row keys). */
struct PivotColumns {
    std::size_t pivot = 0;
    std::size_t value = 0;
    std::vector<std::size_t> keys;
};

PivotColumns pivot_columns(const io::ResultsTable& table, const std::string& pivot, const std::string& value)
{
    PivotColumns columns{column_index(table, pivot, "--pivot"), column_index(table, value, "--value"), {}};
    if (table.columns[columns.pivot].role != io::ColumnRole::param) {
        SHARDRUN_THROW(UsageError, fmt::format("table: --pivot: '{}' is not a param of {}; pivot a swept param (e.g. device)",
                                               pivot, table.path));
    }
    if (table.columns[columns.value].is_text() || columns.value == columns.pivot) {
        SHARDRUN_THROW(UsageError, fmt::format("table: --value: '{}' is not a number column; give a number result (e.g. seconds)", value));
    }
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        if (table.columns[c].role == io::ColumnRole::param && c != columns.pivot) columns.keys.push_back(c);
    }
    return columns;
}

/** Puts each task's value in its row and label's column; two tasks in one cell are a UsageError. */
void fill_cells(const io::ResultsTable& table, const PivotColumns& columns, const std::vector<std::size_t>& rows,
                const Grouping& grouping, const std::vector<std::string>& labels, io::ResultsTable& pivoted,
                std::size_t first_value)
{
    std::vector<std::map<std::size_t, std::size_t>> filled(labels.size());  // pivot row -> task
    for (std::size_t t = 0; t < rows.size(); ++t) {
        const auto task = rows[t];
        const auto row = grouping.row_of[t];
        const auto label = static_cast<std::size_t>(
            std::find(labels.begin(), labels.end(), cell_text(table.columns[columns.pivot], task)) - labels.begin());
        const auto [earlier, added] = filled[label].emplace(row, task);
        if (!added) {
            SHARDRUN_THROW(UsageError, fmt::format("table: --pivot {}: tasks {} and {} both have {}; keep one with --where",
                                                   table.columns[columns.pivot].name, earlier->second, task,
                                                   cell_name(table, columns.keys, columns.pivot, task)));
        }
        if (!table.present(columns.value, task)) continue;
        auto& column = pivoted.columns[first_value + label];
        std::get<std::vector<double>>(column.values)[row] = cell_number(table.columns[columns.value], task);
        column.missing[row] = false;
    }
}

/** speedup = the first value column / the second, where both cells are there and the second is not 0. */
void add_speedup(io::ResultsTable& pivoted, std::size_t first_value)
{
    auto speedup = number_column("speedup", pivoted.task_count, false);
    const auto& a = pivoted.columns[first_value];
    const auto& b = pivoted.columns[first_value + 1];
    for (std::size_t row = 0; row < pivoted.task_count; ++row) {
        const double divisor = std::get<std::vector<double>>(b.values)[row];
        if (a.missing[row] || b.missing[row] || divisor == 0) continue;
        std::get<std::vector<double>>(speedup.values)[row] = std::get<std::vector<double>>(a.values)[row] / divisor;
        speedup.missing[row] = false;
    }
    pivoted.columns.push_back(std::move(speedup));
}

}  // namespace

io::ResultsTable pivot_table(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                             const std::string& pivot, const std::string& value)
{
    const auto columns = pivot_columns(table, pivot, value);
    const auto grouping = group_tasks(table, columns.keys, rows);
    std::vector<std::string> labels;  // the pivot's values, in task order
    for (const auto task : rows) {
        const auto label = cell_text(table.columns[columns.pivot], task);
        if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
    }

    io::ResultsTable pivoted;
    pivoted.path = table.path;
    pivoted.complete = table.complete;
    pivoted.task_count = grouping.first_task.size();
    pivoted.has_result.assign(pivoted.task_count, true);
    for (const auto k : columns.keys) pivoted.columns.push_back(pick(table.columns[k], grouping.first_task));
    const auto first_value = pivoted.columns.size();
    for (const auto& label : labels) {
        pivoted.columns.push_back(
            number_column(label + "_" + value, pivoted.task_count, table.columns[columns.value].single_precision));
    }
    fill_cells(table, columns, rows, grouping, labels, pivoted, first_value);
    if (labels.size() == 2) add_speedup(pivoted, first_value);
    return pivoted;
}

}  // namespace shardrun::cli
