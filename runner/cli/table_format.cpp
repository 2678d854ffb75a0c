// The three printed forms of `shardrun table`: aligned text, CSV and JSON records.
#include "runner/cli/table_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace shardrun::cli {
namespace {

enum class Style { text, csv };

/** Shortest text that reads back as the stored value (float32 as float32). */
std::string exact(double value, bool single_precision)
{
    return single_precision ? fmt::format("{}", static_cast<float>(value)) : fmt::format("{}", value);
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
        return style == Style::text ? fmt::format("{:.6g}", (*floats)[row]) : exact((*floats)[row], column.single_precision);
    }
    if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&column.values)) return fmt::format("{}", (*ints)[row]);
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
        return column.single_precision ? std::stod(exact(value, true)) : value;
    }
    if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&column.values)) return (*ints)[row];
    return std::get<std::vector<std::string>>(column.values)[row];
}

void trim_right(std::string& line)
{
    line.erase(line.find_last_not_of(' ') + 1);
}

}  // namespace

std::string table_text(const io::ResultsTable& table, const std::vector<std::size_t>& rows)
{
    const auto columns = table.columns.size();
    std::vector<std::vector<std::string>> cells(rows.size() + 1);
    std::vector<std::size_t> width(columns, 0);
    for (std::size_t c = 0; c < columns; ++c) {
        cells[0].push_back(table.columns[c].name);
        for (std::size_t r = 0; r < rows.size(); ++r) cells[r + 1].push_back(cell(table, c, rows[r], Style::text));
        for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
    }
    std::string out;
    for (const auto& line : cells) {
        std::string text;
        for (std::size_t c = 0; c < columns; ++c) {
            if (c > 0) text += "  ";
            text += table.columns[c].is_text() ? fmt::format("{:<{}}", line[c], width[c])
                                               : fmt::format("{:>{}}", line[c], width[c]);
        }
        trim_right(text);
        out += text + "\n";
    }
    return out;
}

std::string table_csv(const io::ResultsTable& table, const std::vector<std::size_t>& rows)
{
    std::string out;
    for (std::size_t c = 0; c < table.columns.size(); ++c) out += (c ? "," : "") + csv_quoted(table.columns[c].name);
    out += "\n";
    for (const auto row : rows) {
        for (std::size_t c = 0; c < table.columns.size(); ++c) out += (c ? "," : "") + cell(table, c, row, Style::csv);
        out += "\n";
    }
    return out;
}

std::string table_json(const io::ResultsTable& table, const std::vector<std::size_t>& rows)
{
    std::string out = "[";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        nlohmann::ordered_json record = nlohmann::ordered_json::object();
        for (std::size_t c = 0; c < table.columns.size(); ++c) record[table.columns[c].name] = json_cell(table, c, rows[r]);
        out += (r ? ",\n" : "\n") + record.dump();
    }
    return out + (rows.empty() ? "]\n" : "\n]\n");
}

}  // namespace shardrun::cli
