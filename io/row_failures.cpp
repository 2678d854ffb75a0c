#include "io/row_failures.hpp"

#include <charconv>

#include "io/attempt_log.hpp"

namespace shardrun::io {
namespace {

constexpr std::string_view row_tag = "row\t";

template <typename T>
T number(std::string_view text)
{
    T value{};
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

}  // namespace

std::string encode_row_failures(const std::vector<RowFailure>& rows)
{
    std::string text;
    for (const auto& row : rows) {
        text += row_tag;
        text += std::to_string(row.item) + '\t' + std::to_string(row.exit_code) + '\t' + one_line(row.reason) + '\n';
    }
    return text;
}

bool has_row_failures(std::string_view log)
{
    // Attempt lines start with a number, the row lines with their tag.
    return log.substr(0, row_tag.size()) == row_tag || log.find(std::string("\n").append(row_tag)) != std::string_view::npos;
}

std::vector<RowFailure> decode_row_failures(std::string_view log)
{
    std::vector<RowFailure> rows;
    while (!log.empty()) {
        const auto newline = log.find('\n');
        auto line = log.substr(0, newline);
        log = newline == std::string_view::npos ? std::string_view{} : log.substr(newline + 1);
        if (line.substr(0, row_tag.size()) != row_tag) continue;
        line.remove_prefix(row_tag.size());
        const auto tab1 = line.find('\t');
        const auto tab2 = tab1 == std::string_view::npos ? tab1 : line.find('\t', tab1 + 1);
        if (tab2 == std::string_view::npos) continue;
        rows.push_back(RowFailure{number<std::uint64_t>(line.substr(0, tab1)),
                                  number<std::int32_t>(line.substr(tab1 + 1, tab2 - tab1 - 1)),
                                  std::string(line.substr(tab2 + 1))});
    }
    return rows;
}

}  // namespace shardrun::io
