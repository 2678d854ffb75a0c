#include "runner/job/yaml_context.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runner/errors.hpp"
#include "runner/job/edit_distance.hpp"

namespace shardrun::job {

std::string one_line(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if ((byte < 0x20 && c != '\t') || byte == 0x7f) {
            out += fmt::format("\\x{:02x}", byte);
        } else {
            out += c;
        }
    }
    return out;
}

std::string closest_name(std::string_view word, const std::vector<std::string>& allowed)
{
    std::string best;
    size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
    for (const auto& name : allowed) {
        const size_t distance = edit_distance(word, name);
        if (distance < best_distance) {
            best_distance = distance;
            best = name;
        }
    }
    return best;
}

std::string closest_choice(std::string_view word, const std::vector<std::string>& allowed)
{
    static const std::vector<std::pair<std::string_view, std::string_view>> synonyms{
        {"gpu", "cuda"}, {"GPU", "cuda"}, {"nvidia", "cuda"}, {"cuda:0", "cuda"}};
    for (const auto& [other, choice] : synonyms) {
        if (word == other && std::find(allowed.begin(), allowed.end(), choice) != allowed.end()) return std::string(choice);
    }
    return closest_name(word, allowed);
}

std::string join_path(std::string_view parent, std::string_view child)
{
    return parent.empty() ? std::string(child) : fmt::format("{}.{}", parent, child);
}

std::string YamlContext::where(const YAML::Node& node, std::string_view path) const
{
    return where(mark_of(node), path);
}

YAML::Mark mark_of(const YAML::Node& node) { return node.IsDefined() ? node.Mark() : YAML::Mark::null_mark(); }

std::string YamlContext::where(const YAML::Mark& mark, std::string_view path) const
{
    for (const auto& overridden : overridden_) {
        if (path == overridden || path.starts_with(overridden + ".") || path.starts_with(overridden + "[")) {
            return fmt::format("--set {}", overridden);
        }
    }
    if (mark.is_null()) {
        // A section that --set created has no position: name the --set that made it.
        for (const auto& overridden : overridden_) {
            if (overridden.starts_with(std::string(path) + ".")) return fmt::format("--set {}", overridden);
        }
        return fmt::format("{}:1:1", file_);
    }
    return fmt::format("{}:{}:{}", file_, mark.line + 1, mark.column + 1);
}

std::string located(std::string_view where, std::string_view path, std::string_view message)
{
    if (where == fmt::format("--set {}", path)) return one_line(fmt::format("{}: {}", where, message));
    return one_line(fmt::format("{}: {}: {}", where, path, message));
}

void YamlContext::fail(const YAML::Node& node, std::string_view path, std::string_view message) const
{
    SHARDRUN_THROW(JobFileError, located(where(node, path), path, message));
}

void YamlContext::fail(const YAML::Mark& mark, std::string_view path, std::string_view message) const
{
    SHARDRUN_THROW(JobFileError, located(where(mark, path), path, message));
}

void YamlContext::check_dataset_name(const YAML::Node& node, std::string_view path, const std::string& name) const
{
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
        fail(node, path, fmt::format("'{}' cannot name a dataset in the results file; use a non-empty name without '/'", name));
    }
    // Every group of the results file holds its own `task` coordinate (the task ids).
    if (name == "task") {
        fail(node, path, "'task' is the task-id coordinate of every group in the results file; choose another name");
    }
}

void YamlContext::check_keys(const YAML::Node& node, std::string_view path,
                             const std::vector<std::string>& allowed) const
{
    for (const auto& entry : node) {
        const auto key = entry.first.as<std::string>();
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
        const auto suggestion = closest_name(key, allowed);
        const auto hint = suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion);
        fail(entry.first, join_path(path, key),
             fmt::format("unknown key{}; allowed: {}", hint, fmt::join(allowed, ", ")));
    }
}

}  // namespace shardrun::job
