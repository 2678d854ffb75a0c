#include "runner/job/yaml_checks.hpp"

#include <fmt/format.h>

#include <map>

#include "runner/errors.hpp"
#include "runner/tasks/exec/exec_kind.hpp"

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

}  // namespace

void check_document(const YAML::Node& root, const YamlContext& context) { check_node(root, context, ""); }

void check_param_names(const YAML::Node& root, const YamlContext& context, const JobSpec& spec)
{
    std::map<std::string, std::string> owners;  // environment name -> parameter name
    auto names = spec.sweep.names();
    for (const auto& [name, value] : spec.params.entries()) names.push_back(name);
    for (const auto& name : names) {
        const auto env = tasks::param_env_name(name);
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
        throw JobFileError(fmt::format("{}: {} sweep points x {} data chunks is more than 2^64 tasks; use fewer items "
                                       "or a larger data.chunk",
                                       where, points, chunks));
    }
    return tasks;
}

}  // namespace shardrun::job
