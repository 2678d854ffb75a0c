#include "runner/job/duration.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace shardrun::job {

std::optional<double> parse_duration(std::string_view text)
{
    if (text.empty()) return std::nullopt;
    double total = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), value);
        if (ec != std::errc() || !(value >= 0) || !std::isfinite(value)) return std::nullopt;
        pos = static_cast<size_t>(end - text.data());
        size_t unit_end = pos;
        while (unit_end < text.size() && std::isalpha(static_cast<unsigned char>(text[unit_end]))) ++unit_end;
        const auto unit = text.substr(pos, unit_end - pos);
        if (unit.empty() && unit_end == text.size() && total == 0) return value;  // bare seconds
        if (unit == "ms") value /= 1000;
        else if (unit == "s") {}
        else if (unit == "m") value *= 60;
        else if (unit == "h") value *= 3600;
        else if (unit == "d") value *= 86400;
        else return std::nullopt;
        total += value;
        pos = unit_end;
    }
    return total;
}

std::string duration_text(double seconds)
{
    if (seconds < 60) return fmt::format("{:.1f}s", seconds);
    const auto whole = static_cast<long long>(seconds + 0.5);
    const auto hours = whole / 3600, minutes = whole / 60 % 60, rest = whole % 60;
    if (hours == 0) return fmt::format("{}m{}s", minutes, rest);
    return rest == 0 ? fmt::format("{}h{}m", hours, minutes) : fmt::format("{}h{}m{}s", hours, minutes, rest);
}

}  // namespace shardrun::job
