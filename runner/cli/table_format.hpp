#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/read/results_table.hpp"

namespace shardrun::cli {

// Every form prints the given `columns` (indices into table.columns, in that order) of the given
// `rows`; the two-argument forms print default_columns() (table_columns.hpp). Time columns
// (TableColumn::is_time) print as ISO 8601 UTC in every form: milliseconds in text
// (2026-11-26T00:12:37.250Z), microseconds in CSV and JSON (about what a double of Unix seconds
// holds; pd.to_datetime reads both). --where and --sort use the stored seconds.

/**
 * Aligned columns for a terminal: numbers right-aligned with 6 significant digits, text
 * left-aligned, `-` for a task without a result.
 */
std::string table_text(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                       const std::vector<std::size_t>& columns);
std::string table_text(const io::ResultsTable& table, const std::vector<std::size_t>& rows);

/**
 * RFC 4180 CSV with a header line, for `pd.read_csv`: numbers in their shortest exact form
 * (float32 as float32), `nan` / `inf` / `-inf` as such, an empty cell for a task without a
 * result, text quoted when it holds a comma, a quote, a line break or edge spaces.
 */
std::string table_csv(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                      const std::vector<std::size_t>& columns);
std::string table_csv(const io::ResultsTable& table, const std::vector<std::size_t>& rows);

/**
 * A JSON array of records (`pd.read_json(text, orient="records")`), one object per line,
 * keys in column order; NaN, infinities and missing results are null (JSON has no NaN).
 */
std::string table_json(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                       const std::vector<std::size_t>& columns);
std::string table_json(const io::ResultsTable& table, const std::vector<std::size_t>& rows);

}  // namespace shardrun::cli
