#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/read/results_table.hpp"

namespace shardrun::cli {

/** One `NAME OP VALUE` of a --where expression. */
struct Condition {
    std::string column;
    std::string op;     ///< == != < <= > >=
    std::string value;  ///< as written, quotes removed
};

/** What `shardrun table` shows: which rows, in which order, how many. */
struct TableQuery {
    std::vector<Condition> where;          ///< all must hold
    std::optional<std::string> sort;       ///< column name; task order when absent
    bool descending = false;
    std::optional<std::size_t> top;
};

/**
 * Parses the --where language: `NAME OP VALUE` joined by `and`, OP one of
 * `== != < <= > >=`, VALUE a number, a word or a quoted string ('a b' or "a b").
 * @throws UsageError  one line that quotes the problem and says what is allowed
 */
std::vector<Condition> parse_where(const std::string& text);

/**
 * The rows of `table` the query selects, in order. Numbers compare numerically, text by
 * bytes; NaN and missing cells sort last either way and match no condition.
 * @throws UsageError  unknown column (with "did you mean"), text compared with < or >,
 *                     a number column compared with something that is not a number
 */
std::vector<std::size_t> select_rows(const io::ResultsTable& table, const TableQuery& query);

/** The column called `name`; UsageError naming `option` and the closest name otherwise. */
std::size_t column_index(const io::ResultsTable& table, const std::string& name, const std::string& option);

}  // namespace shardrun::cli
