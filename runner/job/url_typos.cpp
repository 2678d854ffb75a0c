#include "runner/job/url_typos.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "runner/job/edit_distance.hpp"
#include "runner/job/remote_path.hpp"

namespace shardrun::storage {
namespace {

// The schemes of remote_path.cpp, for suggestions.
constexpr std::array<std::string_view, 4> scheme_names{"s3", "gs", "gcs", "rclone"};

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

/** RFC 3986's scheme: a letter, then letters, digits, '+', '-' or '.'. */
bool scheme_word(std::string_view word)
{
    if (word.empty() || !std::isalpha(static_cast<unsigned char>(word.front()))) return false;
    return std::all_of(word.begin(), word.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '+' || c == '-' || c == '.';
    });
}

/**
 * The supported scheme `word` is a typo of: the same in any case, or one edit away (two for
 * rclone); "" for none. One edit, not two, for the short names: "az" (Azure) is two edits from
 * "s3" and "gs", and suggesting either would mislead.
 */
std::string_view near_scheme(std::string_view word)
{
    const auto typed = lower(word);
    for (const auto name : scheme_names) {
        if (typed == name) return name;
    }
    for (const auto name : scheme_names) {
        if (job::edit_distance(typed, name) <= (name.size() >= 5 ? 2U : 1U)) return name;
    }
    return {};
}

/** misspelled_url() of `path` + `tail`, where only `path` may hold a scheme (the tail: ":/DATASET"). */
std::optional<std::string> misspelled(const std::string& path, const std::string& tail)
{
    if (is_remote(path)) return std::nullopt;
    const auto first = std::string_view(path).substr(0, path.find('/'));
    const auto colon = first.find(':');
    std::string_view word;
    if (colon != std::string_view::npos && scheme_word(first.substr(0, colon))) {
        word = first.substr(0, colon);  // "s3:/b", "S3://b", "s4://b", "http://h", "myremote:bucket/x"
    } else if (colon == std::string_view::npos && path.compare(first.size(), 2, "//") == 0 && !near_scheme(first).empty()) {
        word = first;  // "s3//b/x.h5": the colon left out
    } else {
        return std::nullopt;
    }
    auto rest = std::string_view(path).substr(word.size());
    rest.remove_prefix(std::min(rest.find_first_not_of(':'), rest.size()));
    const auto address = rest.substr(std::min(rest.find_first_not_of('/'), rest.size()));
    const auto given = path + tail;
    const auto local = fmt::format("for a local path write ./{}", given);
    if (const auto scheme = near_scheme(word); !scheme.empty()) {
        return fmt::format("'{}' is no URL shardrun knows; did you mean {}://{}{}? ({})", given, scheme, address, tail, local);
    }
    if (lower(word) == "file") {
        return fmt::format("'{}' is no URL shardrun knows; did you mean the local path /{}{}?", given, address, tail);
    }
    if (colon + 1 < first.size()) {
        // "myremote:bucket/x.h5" is rclone's way to name a remote of its configuration.
        return fmt::format("'{}' is no URL shardrun knows; did you mean rclone://{}? (a remote of your rclone "
                           "configuration; {})", given, given, local);
    }
    return fmt::format("'{}' starts with the URL scheme '{}:', which shardrun does not know; use s3://, gs:// or "
                       "rclone://REMOTE:path ({})", given, word, local);
}

}  // namespace

std::optional<std::string> misspelled_url(const std::string& path) { return misspelled(path, ""); }

std::optional<std::string> misspelled_input_url(const std::string& input)
{
    const auto split = input.rfind(":/");
    if (split == std::string::npos || is_remote(input)) return std::nullopt;
    const auto file = input.substr(0, split);
    if (auto reason = misspelled(file, input.substr(split))) return reason;
    // "s3:/b/x.h5" alone splits into the file "s3" and the dataset "/b/x.h5": no local file is named so.
    if (const auto scheme = near_scheme(file); !scheme.empty() && lower(file) == scheme) {
        return fmt::format("'{}' is no URL shardrun knows; did you mean {}://{}:/DATASET?", input, scheme,
                           input.substr(input.find_first_not_of(":/", split)));
    }
    return std::nullopt;
}

}  // namespace shardrun::storage
