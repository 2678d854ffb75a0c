// The three printed forms of `shardrun table`: aligned text, CSV and JSON records.
#include "runner/cli/table_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "runner/cli/table_columns.hpp"

namespace shardrun::cli {
namespace {

enum class Style { text, csv };

/** Unix seconds as ISO 8601 UTC with `digits` (3 or 6) decimals, e.g. 2026-11-26T00:12:37.250Z. */
std::string iso8601(double seconds, int digits)
{
    const double scale = digits == 3 ? 1e3 : 1e6;
    const auto ticks = static_cast<long long>(std::llround(seconds * scale));
    const auto per_second = static_cast<long long>(scale);
    // Floor division, so that a time before 1970 still gets a fraction in [0, 1).
    auto whole = ticks / per_second;
    auto fraction = ticks % per_second;
    if (fraction < 0) fraction += per_second, --whole;
    const auto time = static_cast<std::time_t>(whole);
    std::tm utc{};
    gmtime_r(&time, &utc);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:0{}}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                       utc.tm_hour, utc.tm_min, utc.tm_sec, fraction, digits);
}

/** Shortest text that reads back as the stored value (float32 as float32). */
std::string exact(double value, bool single_precision)
{
    return single_precision ? fmt::format("{}", static_cast<float>(value)) : fmt::format("{}", value);
}

/** exact(), with ".0" after a whole number, so that a reader that guesses types from the text
 * (pandas.read_csv) keeps a float column float: 14.0 is "14.0", not the integer "14". */
std::string exact_float_text(double value, bool single_precision)
{
    auto text = exact(value, single_precision);
    if (text.find_first_not_of("-0123456789") == std::string::npos) text += ".0";
    return text;
}

std::string csv_quoted(const std::string& value)
{
    const bool plain = !value.empty() && value.find_first_of(",\"\r\n") == std::string::npos &&
                       value.front() != ' ' && value.back() != ' ';
    if (plain) return value;
    std::string quoted = "\"";
    for (const char c : value) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string cell(const io::ResultsTable& table, std::size_t column_index, std::size_t row, Style style)
{
    if (!table.present(column_index, row)) return style == Style::text ? "-" : "";
    const auto& column = table.columns[column_index];
    if (const auto* floats = std::get_if<std::vector<double>>(&column.values)) {
        if (column.is_time) return iso8601((*floats)[row], style == Style::text ? 3 : 6);
        return style == Style::text ? fmt::format("{:.6g}", (*floats)[row])
                                    : exact_float_text((*floats)[row], column.single_precision);
    }
    if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&column.values)) {
        if (column.is_bool) return (*ints)[row] != 0 ? "true" : "false";
        return fmt::format("{}", (*ints)[row]);
    }
    const auto& text = std::get<std::vector<std::string>>(column.values)[row];
    return style == Style::csv ? csv_quoted(text) : text;
}

nlohmann::ordered_json json_cell(const io::ResultsTable& table, std::size_t column_index, std::size_t row)
{
    if (!table.present(column_index, row)) return nullptr;
    const auto& column = table.columns[column_index];
    if (const auto* floats = std::get_if<std::vector<double>>(&column.values)) {
        const double value = (*floats)[row];
        if (!std::isfinite(value)) return nullptr;
        if (column.is_time) return iso8601(value, 6);
        return column.single_precision ? std::stod(exact(value, true)) : value;
    }
    if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&column.values)) {
        if (column.is_bool) return (*ints)[row] != 0;
        return (*ints)[row];
    }
    return std::get<std::vector<std::string>>(column.values)[row];
}

void trim_right(std::string& line)
{
    line.erase(line.find_last_not_of(' ') + 1);
}

}  // namespace

std::string table_text(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                       const std::vector<std::size_t>& picked)
{
    const auto columns = picked.size();
    std::vector<std::vector<std::string>> cells(rows.size() + 1);
    std::vector<std::size_t> width(columns, 0);
    for (std::size_t c = 0; c < columns; ++c) {
        cells[0].push_back(table.columns[picked[c]].name);
        for (std::size_t r = 0; r < rows.size(); ++r) cells[r + 1].push_back(cell(table, picked[c], rows[r], Style::text));
        for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
    }
    std::string out;
    for (const auto& line : cells) {
        std::string text;
        for (std::size_t c = 0; c < columns; ++c) {
            if (c > 0) text += "  ";
            const auto& column = table.columns[picked[c]];
            text += column.is_text() || column.is_time ? fmt::format("{:<{}}", line[c], width[c])
                                                       : fmt::format("{:>{}}", line[c], width[c]);
        }
        trim_right(text);
        out += text + "\n";
    }
    return out;
}

std::string table_csv(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                      const std::vector<std::size_t>& picked)
{
    std::string out;
    for (std::size_t c = 0; c < picked.size(); ++c) out += (c ? "," : "") + csv_quoted(table.columns[picked[c]].name);
    out += "\n";
    for (const auto row : rows) {
        for (std::size_t c = 0; c < picked.size(); ++c) out += (c ? "," : "") + cell(table, picked[c], row, Style::csv);
        out += "\n";
    }
    return out;
}

std::string table_json(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                       const std::vector<std::size_t>& picked)
{
    std::string out = "[";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        nlohmann::ordered_json record = nlohmann::ordered_json::object();
        for (const auto c : picked) record[table.columns[c].name] = json_cell(table, c, rows[r]);
        out += (r ? ",\n" : "\n") + record.dump();
    }
    return out + (rows.empty() ? "]\n" : "\n]\n");
}

std::string table_text(const io::ResultsTable& table, const std::vector<std::size_t>& rows)
{
    return table_text(table, rows, default_columns(table));
}

std::string table_csv(const io::ResultsTable& table, const std::vector<std::size_t>& rows)
{
    return table_csv(table, rows, default_columns(table));
}

std::string table_json(const io::ResultsTable& table, const std::vector<std::size_t>& rows)
{
    return table_json(table, rows, default_columns(table));
}

}  // namespace shardrun::cli
