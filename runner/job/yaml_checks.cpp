#include "runner/job/yaml_checks.hpp"

#include <fmt/format.h>

#include <map>

#include "runner/errors.hpp"
#include "runner/job/argv_template.hpp"

namespace shardrun::job {
namespace {

// The NUL itself is shown as \0, so the message is not cut where the value would be.
std::string printable(std::string text)
{
    for (auto pos = text.find('\0'); pos != std::string::npos; pos = text.find('\0', pos + 2)) text.replace(pos, 1, "\\0");
    return text;
}

void check_scalar(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    if (node.Scalar().find('\0') != std::string::npos) {
        context.fail(node, path.empty() ? "(key)" : printable(path), "contains a NUL character, which would cut it short");
    }
}

void check_node(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    if (node.IsScalar()) {
        check_scalar(node, context, path);
    } else if (node.IsSequence()) {
        for (std::size_t i = 0; i < node.size(); ++i) check_node(node[i], context, fmt::format("{}[{}]", path, i));
    } else if (node.IsMap()) {
        std::map<std::string, YAML::Mark> seen;
        for (const auto& entry : node) {
            // Every later reader takes a key as a word (as<std::string> would throw a bare
            // yaml-cpp "bad conversion"); `? [a]` or `{[a]: 1}` is a mistake to name here.
            if (entry.first.IsSequence() || entry.first.IsMap()) {
                context.fail(entry.first, path.empty() ? "(key)" : path,
                             fmt::format("a key must be one word, not a {}", entry.first.IsSequence() ? "list" : "mapping"));
            }
            if (!entry.first.IsScalar()) continue;
            const auto key = entry.first.Scalar();
            const auto child = join_path(path, key);
            check_scalar(entry.first, context, child);
            if (const auto first = seen.find(key); first != seen.end()) {
                context.fail(entry.first, child,
                             fmt::format("duplicate key (first given at line {}); a key may appear once in a mapping",
                                         first->second.line + 1));
            }
            seen.emplace(key, entry.first.Mark());
            check_node(entry.second, context, child);
        }
    }
}

// Scans from the opening quote at `pos` as YAML does: \x escapes in "...", '' in '...'.
bool quote_closes(std::string_view text, std::size_t pos)
{
    const char quote = text[pos];
    for (std::size_t i = pos + 1; i < text.size(); ++i) {
        if (quote == '"' && text[i] == '\\') {
            ++i;
        } else if (text[i] == quote) {
            if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
                ++i;
            } else {
                return true;
            }
        }
    }
    return false;
}

std::optional<YAML::Mark> unclosed_in(const YAML::Node& node, std::string_view text)
{
    if (node.IsScalar()) {
        const auto mark = node.Mark();
        const bool quoted = !mark.is_null() && mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < text.size() &&
                            (text[mark.pos] == '"' || text[mark.pos] == '\'');
        return quoted && !quote_closes(text, static_cast<std::size_t>(mark.pos)) ? std::optional(mark) : std::nullopt;
    }
    if (node.IsSequence()) {
        for (const auto& item : node) {
            if (auto mark = unclosed_in(item, text)) return mark;
        }
    } else if (node.IsMap()) {
        for (const auto& entry : node) {
            if (auto mark = unclosed_in(entry.first, text)) return mark;
            if (auto mark = unclosed_in(entry.second, text)) return mark;
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<YAML::Mark> unclosed_quote(const YAML::Node& root, std::string_view text)
{
    // yaml-cpp counts positions after a UTF-8 byte order mark.
    constexpr std::string_view bom = "\xEF\xBB\xBF";
    return unclosed_in(root, text.starts_with(bom) ? text.substr(bom.size()) : text);
}

void check_fixed_or_swept(const JobSpec& spec)
{
    for (const auto& name : spec.sweep.names()) {
        if (!spec.params.contains(name)) continue;
        const auto fixed_at = spec.sites.value("params." + name, spec.file);
        SHARDRUN_THROW(JobFileError, located(spec.sweep.name_where(name), "sweep." + name,
                                             fmt::format("'{}' is also fixed in params ({}); a parameter is either fixed or "
                                                         "swept: remove one of them",
                                                         name, fixed_at)));
    }
}

void record_sites(const YAML::Node& root, const YamlContext& context, JobSpec& spec)
{
    auto& sites = spec.sites;
    sites.values["task"] = context.where(root["task"], "task");
    const auto params = root["params"];
    sites.values["params"] = params ? context.where(params, "params") : sites.values["task"];
    for (const auto& entry : params.IsMap() ? params : YAML::Node()) {
        const auto path = "params." + entry.first.as<std::string>();
        sites.values[path] = context.where(entry.second, path);
        sites.keys[path] = context.where(entry.first, path);
    }
    const auto data = root["data"];
    for (const char* key : {"input", "chunk"}) {
        const auto path = fmt::format("data.{}", key);
        if (data.IsMap() && data[key]) sites.values[path] = context.where(data[key], path);
    }
}

void check_document(const YAML::Node& root, const YamlContext& context) { check_node(root, context, ""); }

void check_param_names(const YAML::Node& root, const YamlContext& context, const JobSpec& spec)
{
    std::map<std::string, std::string> owners;  // environment name -> parameter name
    auto names = spec.sweep.names();
    for (const auto& [name, value] : spec.params.entries()) names.push_back(name);
    for (const auto& name : names) {
        const auto env = param_env_name(name);
        const auto [owner, fresh] = owners.emplace(env, name);
        if (fresh || owner->second == name) continue;
        const auto section = root["sweep"] && root["sweep"][name] ? "sweep" : "params";
        const auto node = root[section] && root[section][name] ? root[section][name] : root[section];
        context.fail(node, join_path(section, name),
                     fmt::format("'{}' and '{}' are both {} for an exec task; rename one", owner->second, name, env));
    }
}

std::uint64_t checked_task_count(std::uint64_t points, bool has_data, std::uint64_t items, std::uint64_t chunk,
                                 const std::string& where)
{
    const std::uint64_t chunks = has_data ? items / chunk + (items % chunk != 0 ? 1 : 0) : 1;
    std::uint64_t tasks = 0;
    if (__builtin_mul_overflow(points, chunks, &tasks)) {
        SHARDRUN_THROW(JobFileError, fmt::format("{}: {} sweep points x {} data chunks is more than 2^64 tasks; use fewer items "
                                                 "or a larger data.chunk",
                                                 where, points, chunks));
    }
    return tasks;
}

}  // namespace shardrun::job
