#include "io/input/csv_fields.hpp"

namespace shardrun::io {

std::optional<std::vector<std::string>> split_csv_fields(std::string_view line)
{
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c != '"') {
                fields.back() += c;
            } else if (i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else {
                quoted = false;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    if (quoted) return std::nullopt;
    return fields;
}

std::optional<std::size_t> count_csv_fields(std::string_view line)
{
    std::size_t fields = 1;
    bool quoted = false;
    // A '""' inside quotes toggles twice: the count is the same as with the pair read as one quote.
    for (const char c : line) {
        if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            ++fields;
        }
    }
    if (quoted) return std::nullopt;
    return fields;
}

}  // namespace shardrun::io
