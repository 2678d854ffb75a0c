#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shardrun::cli {

/**
 * A table cell's text made safe for Markdown: `|` would end the cell and `<name>` would be read
 * as an HTML tag and vanish from the page, so both are escaped; line breaks become spaces.
 */
std::string markdown_cell(std::string_view text);

/** A one-line summary as a sentence of a page: its first letter upper case, a full stop at the end; escaped as a cell. */
std::string markdown_sentence(std::string_view text);

/**
 * A Markdown (GitHub / Python-Markdown "tables") table: the header row, the rule, then one line
 * per row, each cell already passed through markdown_cell() by the caller or written as Markdown.
 */
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace shardrun::cli
