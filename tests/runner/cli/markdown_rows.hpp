#pragma once

// Reading a generated reference page back (runner/cli/markdown_table.hpp writes it): the tests
// find each table row's cells under each heading, as a reader of the page would see them.
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardrun::cli {

/** The reverse of markdown_cell(): "a \| b &lt;c&gt;" -> "a | b <c>". */
inline std::string markdown_cell_text(std::string_view cell)
{
    std::string text(cell);
    for (const auto& [from, to] : {std::pair{"\\|", "|"}, {"&lt;", "<"}, {"&gt;", ">"}}) {
        for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + 1)) {
            text.replace(at, std::string_view(from).size(), to);
        }
    }
    return text;
}

/** The unescaped cells of "| a | b \| c |", or {} for a line that is no table row or is the rule. */
inline std::vector<std::string> markdown_row_cells(std::string_view line)
{
    if (line.size() < 2 || line.front() != '|' || line.back() != '|' || line.starts_with("|---")) return {};
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i + 1 < line.size(); ++i) {
        if (line[i] == '\\' && line[i + 1] == '|') {
            cell += "\\|";
            ++i;
        } else if (line[i] == '|') {
            cells.push_back(cell);
            cell.clear();
        } else {
            cell += line[i];
        }
    }
    cells.push_back(cell);
    for (auto& each : cells) {
        const auto first = each.find_first_not_of(' ');
        each = first == std::string::npos ? "" : markdown_cell_text(each.substr(first, each.find_last_not_of(' ') - first + 1));
    }
    return cells;
}

/** One table row of a page and the `## ` heading it sits under. */
struct PageRow {
    std::string heading;
    std::vector<std::string> cells;
};

/** Every table row of `page` except the header rows (the line before a `|---` rule). */
inline std::vector<PageRow> page_rows(const std::string& page)
{
    std::vector<std::string> lines;
    std::istringstream stream(page);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    std::vector<PageRow> rows;
    std::string heading;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].starts_with("## ")) heading = lines[i].substr(3);
        const bool header = i + 1 < lines.size() && lines[i + 1].starts_with("|---");
        auto cells = markdown_row_cells(lines[i]);
        if (!header && !cells.empty()) rows.push_back({heading, std::move(cells)});
    }
    return rows;
}

}  // namespace shardrun::cli
