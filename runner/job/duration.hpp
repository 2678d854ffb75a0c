#pragma once

#include <optional>
#include <string_view>

namespace shardrun::job {

/** Seconds in "90", "90s", "10m", "2h", "1h30m", "500ms"; nullopt when malformed or negative. */
std::optional<double> parse_duration(std::string_view text);

}  // namespace shardrun::job
