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

// The row lines a task's failed rows travel as (io/row_failures.hpp).
constexpr std::string_view row_tag = "row\t";

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
        text += one_line(a.host);
        text += a.interrupted ? "\t1\t" : "\t0\t";
        text += one_line(a.message);
        text += '\n';
    }
    return text;
}

bool next_attempt(std::string_view& text, AttemptView& out)
{
    // In place, without a string per number (strtod and a copy per field were a fifth of a merge's CPU).
    while (!text.empty()) {
        const auto newline = text.find('\n');
        const auto line = text.substr(0, newline);
        text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
        std::array<std::string_view, 9> parts;
        std::size_t count = 0;
        for (std::size_t from = 0; count < parts.size();) {
            const auto tab = line.find('\t', from);
            parts[count++] = line.substr(from, tab == std::string_view::npos ? std::string_view::npos : tab - from);
            if (tab == std::string_view::npos) break;
            from = tab + 1;
        }
        if (count != 6 && count != 8) continue;  // 6: written before host and interrupted were
        out.attempt = number<std::int32_t>(parts[0]);
        out.exit_code = number<std::int32_t>(parts[1]);
        out.start = number<double>(parts[2]);
        out.end = number<double>(parts[3]);
        out.rank = number<std::int32_t>(parts[4]);
        out.host = count == 8 ? parts[5] : std::string_view{};
        out.interrupted = count == 8 && parts[6] == "1";
        out.message = parts[count - 1];
        return true;
    }
    return false;
}

std::vector<AttemptRecord> decode_attempts(std::string_view text)
{
    std::vector<AttemptRecord> attempts;
    for (AttemptView a; next_attempt(text, a);) {
        attempts.push_back(AttemptRecord{a.attempt, a.exit_code, a.start, a.end, a.rank, std::string(a.message),
                                         std::string(a.host), a.interrupted});
    }
    return attempts;
}

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

std::int32_t attempt_count(std::string_view text) noexcept
{
    // Every line but the failed rows' (row_tag) is an attempt.
    std::int32_t count = 0;
    for (std::size_t from = 0; from < text.size();) {
        const auto newline = text.find('\n', from);
        if (text.substr(from, row_tag.size()) != row_tag) ++count;
        if (newline == std::string_view::npos) break;
        from = newline + 1;
    }
    return count;
}

}  // namespace shardrun::io
