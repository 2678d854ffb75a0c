#include "runner/cli/help_text.hpp"

#include <sstream>

namespace shardrun::cli {

std::vector<std::string> paragraphs(std::string_view text)
{
    std::vector<std::string> found;
    std::string current;
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
        if (line.find_first_not_of(' ') == std::string::npos) {
            if (!current.empty()) found.push_back(current);
            current.clear();
            continue;
        }
        current += (current.empty() ? "" : " ") + line;
    }
    if (!current.empty()) found.push_back(current);
    return found;
}

std::string plain_text(std::string_view markdown)
{
    std::string text;
    for (const char c : markdown) {
        if (c != '`') text += c;
    }
    return text;
}

std::string wrapped(std::string_view paragraph, std::size_t width, std::size_t first_indent, std::size_t indent)
{
    // Words, with each one that starts with '-' joined to the word before it.
    std::vector<std::string> words;
    std::istringstream split{std::string(paragraph)};
    for (std::string word; split >> word;) {
        if (word.front() == '-' && !words.empty()) words.back() += " " + word;
        else words.push_back(word);
    }
    std::string text(first_indent, ' ');
    std::size_t line_length = first_indent;
    bool line_empty = true;
    for (const auto& word : words) {
        if (!line_empty && line_length + 1 + word.size() > width) {
            text += "\n" + std::string(indent, ' ');
            line_length = indent;
            line_empty = true;
        }
        if (!line_empty) {
            text += ' ';
            ++line_length;
        }
        text += word;
        line_length += word.size();
        line_empty = false;
    }
    return text;
}

}  // namespace shardrun::cli
