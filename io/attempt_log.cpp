#include "io/attempt_log.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "io/row_failures.hpp"

namespace shardrun::io {
namespace {

/** The number at the start of `text` (as atoi / strtod read it; 0 when there is none). */
template <typename T>
T number(std::string_view text)
{
    T value{};
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
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
    // In place, without a string per number (strtod and a copy per field were a fifth of a merge's CPU).
    std::vector<AttemptRecord> attempts;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        const auto line = text.substr(0, newline);
        text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
        std::array<std::string_view, 7> parts;
        std::size_t count = 0;
        for (std::size_t from = 0; count < parts.size();) {
            const auto tab = line.find('\t', from);
            parts[count++] = line.substr(from, tab == std::string_view::npos ? std::string_view::npos : tab - from);
            if (tab == std::string_view::npos) break;
            from = tab + 1;
        }
        if (count != 6) continue;
        AttemptRecord a;
        a.attempt = number<std::int32_t>(parts[0]);
        a.exit_code = number<std::int32_t>(parts[1]);
        a.start = number<double>(parts[2]);
        a.end = number<double>(parts[3]);
        a.rank = number<std::int32_t>(parts[4]);
        a.message = std::string(parts[5]);
        attempts.push_back(std::move(a));
    }
    return attempts;
}

namespace {

/** When the last attempt of `attempts` began (0 when there is none). */
double last_start(const std::vector<AttemptRecord>& attempts)
{
    double last = 0;
    for (const auto& a : attempts) last = std::max(last, a.start);
    return last;
}

}  // namespace

std::string merge_attempt_logs(std::string_view a, std::string_view b)
{
    if (b.empty() || a == b) return std::string(a);
    if (a.empty()) return std::string(b);
    auto all = decode_attempts(a);
    auto from_b = decode_attempts(b);
    // The failed rows are those of the task's latest run: a rerun that found none clears them.
    const auto rows = encode_row_failures(decode_row_failures(last_start(from_b) > last_start(all) ? b : a));
    for (auto& record : from_b) all.push_back(std::move(record));
    std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.start < y.start; });
    const auto same = [](const AttemptRecord& x, const AttemptRecord& y) { return x.start == y.start && x.rank == y.rank; };
    all.erase(std::unique(all.begin(), all.end(), same), all.end());
    bool rising = true;
    for (std::size_t i = 1; i < all.size(); ++i) rising = rising && all[i].attempt > all[i - 1].attempt;
    if (!rising) {
        for (std::size_t i = 0; i < all.size(); ++i) all[i].attempt = static_cast<std::int32_t>(i + 1);
    }
    return encode_attempts(all) + rows;
}

}  // namespace shardrun::io
