#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace shardrun::job {

/** Seconds in "90", "90s", "10m", "2h", "1h30m", "500ms"; nullopt when malformed or negative. */
std::optional<double> parse_duration(std::string_view text);

/** `seconds` in the same words, to the second above a minute: "42.5s", "5m12s", "1h30m", "2h0m5s". */
std::string duration_text(double seconds);

}  // namespace shardrun::job
