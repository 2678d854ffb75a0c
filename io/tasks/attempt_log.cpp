#include "io/tasks/attempt_log.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace shardrun::io {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    std::size_t from = 0;
    while (true) {
        const auto at = text.find(separator, from);
        parts.push_back(text.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
        if (at == std::string_view::npos) return parts;
        from = at + 1;
    }
}

}  // namespace

std::string one_line(std::string text)
{
    for (auto& c : text) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    return text;
}

std::string encode_attempts(const std::vector<AttemptRecord>& attempts)
{
    std::string text;
    char numbers[128];
    for (const auto& a : attempts) {
        // %.17g: the doubles come back bit for bit.
        std::snprintf(numbers, sizeof numbers, "%d\t%d\t%.17g\t%.17g\t%d\t", a.attempt, a.exit_code, a.start, a.end,
                      a.rank);
        text += numbers;
        text += one_line(a.message);
        text += '\n';
    }
    return text;
}

std::vector<AttemptRecord> decode_attempts(std::string_view text)
{
    std::vector<AttemptRecord> attempts;
    for (const auto line : split(text, '\n')) {
        const auto parts = split(line, '\t');
        if (parts.size() != 6) continue;
        AttemptRecord a;
        const auto number = [](std::string_view part) { return std::string(part); };
        a.attempt = std::atoi(number(parts[0]).c_str());
        a.exit_code = std::atoi(number(parts[1]).c_str());
        a.start = std::strtod(number(parts[2]).c_str(), nullptr);
        a.end = std::strtod(number(parts[3]).c_str(), nullptr);
        a.rank = std::atoi(number(parts[4]).c_str());
        a.message = std::string(parts[5]);
        attempts.push_back(std::move(a));
    }
    return attempts;
}

std::string merge_attempt_logs(std::string_view a, std::string_view b)
{
    if (b.empty() || a == b) return std::string(a);
    if (a.empty()) return std::string(b);
    auto all = decode_attempts(a);
    for (auto& record : decode_attempts(b)) all.push_back(std::move(record));
    std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.start < y.start; });
    const auto same = [](const AttemptRecord& x, const AttemptRecord& y) { return x.start == y.start && x.rank == y.rank; };
    all.erase(std::unique(all.begin(), all.end(), same), all.end());
    bool rising = true;
    for (std::size_t i = 1; i < all.size(); ++i) rising = rising && all[i].attempt > all[i - 1].attempt;
    if (!rising) {
        for (std::size_t i = 0; i < all.size(); ++i) all[i].attempt = static_cast<std::int32_t>(i + 1);
    }
    return encode_attempts(all);
}

}  // namespace shardrun::io
