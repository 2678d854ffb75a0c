#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/read/results_table.hpp"

namespace shardrun::cli {

/** The columns `shardrun table` prints without --columns: all but the /tasks records (ColumnRole::record). */
std::vector<std::size_t> default_columns(const io::ResultsTable& table);

/**
 * The columns `--columns a,b,...` names (any column of the table: params, results, status and
 * every /tasks column with the derived seconds), in that order, with `task` put first unless
 * named, so that each row says which task it is.
 * @throws UsageError  an empty list or name, a name given twice, or a name that is not a column:
 *                     one line naming it and listing every column
 */
std::vector<std::size_t> named_columns(const io::ResultsTable& table, const std::string& list);

}  // namespace shardrun::cli
