#include "runner/cli/table_pivot.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

/**
 * True for a value where less is better: a time (the derived seconds, a kernel's seconds, or a
 * field whose name ends in _seconds, _time, _s or _ms). Such a ratio is slower / faster.
 */
bool is_time_like(const std::string& name)
{
    const auto base = name.substr(name.rfind('/') + 1);
    return base == "seconds" || base == "time" || base.ends_with("_seconds") || base.ends_with("_time") ||
           base.ends_with("_s") || base.ends_with("_ms");
}

/** Which two value columns the ratio divides: the numerator's and the denominator's labels. */
std::pair<std::string, std::string> ratio_terms(const std::vector<std::string>& labels, const std::string& ratio,
                                                const std::string& pivot, const std::string& value)
{
    if (ratio.empty()) {
        // The ratio reads "how many times better the second value is than the first" (cpu, then cuda:
        // the GPU's speedup): first / second for a time, second / first for a rate such as gflops.
        return is_time_like(value) ? std::pair{labels[0], labels[1]} : std::pair{labels[1], labels[0]};
    }
    const auto slash = ratio.find('/');
    const std::pair terms{ratio.substr(0, slash), slash == std::string::npos ? "" : ratio.substr(slash + 1)};
    for (const auto& term : {terms.first, terms.second}) {
        if (std::find(labels.begin(), labels.end(), term) == labels.end() || terms.first == terms.second) {
            SHARDRUN_THROW(UsageError, fmt::format("table: --ratio '{}': give two different values of {} as A/B, "
                                                   "one of: {}", ratio, pivot, fmt::join(labels, ", ")));
        }
    }
    return terms;
}

/** Column `<A>/<B>` = A's value / B's, where both cells are there and B's is not 0. */
void add_ratio(io::ResultsTable& pivoted, std::size_t numerator, std::size_t denominator, const std::string& name)
{
    auto ratio = number_column(name, pivoted.task_count, false);
    const auto& a = pivoted.columns[numerator];
    const auto& b = pivoted.columns[denominator];
    for (std::size_t row = 0; row < pivoted.task_count; ++row) {
        const double divisor = std::get<std::vector<double>>(b.values)[row];
        if (a.missing[row] || b.missing[row] || divisor == 0) continue;
        std::get<std::vector<double>>(ratio.values)[row] = std::get<std::vector<double>>(a.values)[row] / divisor;
        ratio.missing[row] = false;
    }
    pivoted.columns.push_back(std::move(ratio));
}

}  // namespace

io::ResultsTable pivot_table(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                             const std::string& pivot, const std::string& value, const std::string& ratio)
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
    if (labels.size() == 2 || !ratio.empty()) {
        const auto [a, b] = ratio_terms(labels, ratio, table.columns[columns.pivot].name, table.columns[columns.value].name);
        const auto offset = [&](const std::string& label) {
            return first_value + static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
        };
        add_ratio(pivoted, offset(a), offset(b), a + "/" + b);
    }
    return pivoted;
}

}  // namespace shardrun::cli
