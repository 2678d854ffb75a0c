#include "runner/job/tree_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "runner/job/resolved_json.hpp"

namespace shardrun::job {
namespace {

// The NUL itself is shown as \0, so the message is not cut where the value would be.
std::string printable(std::string text)
{
    for (auto pos = text.find('\0'); pos != std::string::npos; pos = text.find('\0', pos + 2)) text.replace(pos, 1, "\\0");
    return text;
}

class TreeWalk {
public:
    TreeWalk(const YamlContext& context, const std::vector<std::string>& top_level_keys)
        : context_(context), top_level_keys_(top_level_keys) {}

    nlohmann::ordered_json walk_root(const YAML::Node& root)
    {
        std::map<std::string, nlohmann::ordered_json> identity;
        walk_map(root, "", nullptr, &identity);
        // Every problem of the tree's shape comes before an unknown top-level key, as each
        // would hide the other's cause; the first unknown key in the file's order.
        if (unknown_) unknown_key(*unknown_);
        auto json = nlohmann::ordered_json::object();
        for (const auto& key : identity_sections) {
            if (identity.count(key) != 0) json[key] = std::move(identity[key]);
        }
        return json;
    }

private:
    // `json`: where to build the node's JSON; null outside the identity sections.
    void walk(const YAML::Node& node, const std::string& path, nlohmann::ordered_json* json)
    {
        if (node.IsScalar()) {
            check_scalar(node, path);
            if (json) *json = scalar_json(node);
        } else if (node.IsSequence()) {
            if (json) *json = nlohmann::ordered_json::array();
            for (std::size_t i = 0; i < node.size(); ++i) {
                walk(node[i], fmt::format("{}[{}]", path, i), json ? &json->emplace_back() : nullptr);
            }
        } else if (node.IsMap()) {
            if (json) *json = nlohmann::ordered_json::object();
            walk_map(node, path, json);
        } else if (json) {
            *json = nullptr;
        }
    }

    // `identity` (the root only): the JSON of each identity section, by key.
    void walk_map(const YAML::Node& node, const std::string& path, nlohmann::ordered_json* json,
                  std::map<std::string, nlohmann::ordered_json>* identity = nullptr)
    {
        std::map<std::string, YAML::Mark> seen;
        for (const auto& entry : node) {
            // Every later reader takes a key as a word (as<std::string> would throw a bare
            // yaml-cpp "bad conversion"); `? [a]` or `{[a]: 1}` is a mistake to name here.
            if (entry.first.IsSequence() || entry.first.IsMap()) {
                context_.fail(entry.first, path.empty() ? "(key)" : path,
                              fmt::format("a key must be one word, not a {}", entry.first.IsSequence() ? "list" : "mapping"));
            }
            const auto name = entry.first.as<std::string>();
            if (identity && !unknown_ && std::find(top_level_keys_.begin(), top_level_keys_.end(), name) == top_level_keys_.end()) {
                unknown_ = entry.first;
            }
            nlohmann::ordered_json* child_json = json ? &(*json)[name] : nullptr;
            if (identity && std::find(identity_sections.begin(), identity_sections.end(), name) != identity_sections.end() &&
                identity->count(name) == 0) {
                child_json = &(*identity)[name];
            }
            if (!entry.first.IsScalar()) {
                // A null key (`: 1`, `? ` or `~:`): no reader takes it, and every later step would
                // meet it as the word "null" (or throw on its value's own odd keys).
                context_.fail(entry.first, path.empty() ? "(key)" : path,
                              "a key is missing before its colon; write name: value");
            }
            const auto key = entry.first.Scalar();
            const auto child = join_path(path, key);
            check_scalar(entry.first, child);
            if (const auto first = seen.find(key); first != seen.end()) {
                context_.fail(entry.first, child,
                              fmt::format("duplicate key (first given at line {}); a key may appear once in a mapping",
                                          first->second.line + 1));
            }
            seen.emplace(key, entry.first.Mark());
            walk(entry.second, child, child_json);
        }
    }

    void check_scalar(const YAML::Node& node, const std::string& path) const
    {
        if (node.Scalar().find('\0') != std::string::npos) {
            context_.fail(node, path.empty() ? "(key)" : printable(path), "contains a NUL character, which would cut it short");
        }
    }

    [[noreturn]] void unknown_key(const YAML::Node& key) const
    {
        const auto name = key.as<std::string>();
        const auto suggestion = closest_name(name, top_level_keys_);
        const auto hint = suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion);
        context_.fail(key, name, fmt::format("unknown key{}; allowed: {}", hint, fmt::join(top_level_keys_, ", ")));
    }

    const YamlContext& context_;
    const std::vector<std::string>& top_level_keys_;
    std::optional<YAML::Node> unknown_;
};

}  // namespace

nlohmann::ordered_json check_tree(const YAML::Node& root, const YamlContext& context,
                                  const std::vector<std::string>& top_level_keys)
{
    return TreeWalk(context, top_level_keys).walk_root(root);
}

}  // namespace shardrun::job
