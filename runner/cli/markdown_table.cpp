#include "runner/cli/markdown_table.hpp"

#include <fmt/format.h>

namespace shardrun::cli {

std::string markdown_cell(std::string_view text)
{
    std::string cell;
    for (const char c : text) {
        switch (c) {
        case '|': cell += "\\|"; break;
        case '<': cell += "&lt;"; break;
        case '>': cell += "&gt;"; break;
        case '\n': cell += ' '; break;
        default: cell += c;
        }
    }
    return cell;
}

std::string markdown_sentence(std::string_view text)
{
    auto sentence = markdown_cell(text);
    if (!sentence.empty() && sentence[0] >= 'a' && sentence[0] <= 'z') sentence[0] = static_cast<char>(sentence[0] - 'a' + 'A');
    if (!sentence.empty() && sentence.back() != '.') sentence += '.';
    return sentence;
}

std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows)
{
    std::string text = fmt::format("| {} |\n|", fmt::join(header, " | "));
    for (std::size_t i = 0; i < header.size(); ++i) text += "---|";
    text += "\n";
    for (const auto& row : rows) text += fmt::format("| {} |\n", fmt::join(row, " | "));
    return text;
}

}  // namespace shardrun::cli
