// Which columns `shardrun table` prints: the default set, or what --columns names.
#include "runner/cli/table_columns.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runner/cli/table_query.hpp"
#include "runner/errors.hpp"

namespace shardrun::cli {

std::vector<std::size_t> default_columns(const io::ResultsTable& table)
{
    std::vector<std::size_t> columns;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        if (table.columns[c].role != io::ColumnRole::record) columns.push_back(c);
    }
    return columns;
}

std::vector<std::size_t> named_columns(const io::ResultsTable& table, const std::string& list)
{
    std::vector<std::size_t> columns;
    std::size_t from = 0;
    while (true) {
        const auto comma = std::min(list.find(',', from), list.size());
        const auto name = list.substr(from, comma - from);
        if (name.empty()) {
            SHARDRUN_THROW(UsageError, fmt::format("table: --columns '{}': an empty name; give names joined by commas, "
                                                   "e.g. --columns exit_code,attempts,seconds,host", list));
        }
        const auto index = column_index(table, name, "--columns");
        if (std::find(columns.begin(), columns.end(), index) != columns.end()) {
            SHARDRUN_THROW(UsageError, fmt::format("table: --columns '{}': '{}' is named twice", list, name));
        }
        columns.push_back(index);
        if (comma == list.size()) break;
        from = comma + 1;
    }
    const int task = table.find("task");
    if (task >= 0 && std::find(columns.begin(), columns.end(), static_cast<std::size_t>(task)) == columns.end()) {
        columns.insert(columns.begin(), static_cast<std::size_t>(task));
    }
    return columns;
}

}  // namespace shardrun::cli
