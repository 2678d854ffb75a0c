#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::io {

/**
 * The fields of one CSV line (RFC 4180: ',' separates, '"' quotes, '""' is a quote inside
 * quotes), unquoted; nullopt when a quoted field is not closed on the line.
 */
std::optional<std::vector<std::string>> split_csv_fields(std::string_view line);

/** How many fields split_csv_fields would give, without copying them; nullopt likewise. */
std::optional<std::size_t> count_csv_fields(std::string_view line);

}  // namespace shardrun::io
