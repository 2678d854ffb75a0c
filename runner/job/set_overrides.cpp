#include "runner/job/set_overrides.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <string_view>

#include "runner/errors.hpp"
#include "runner/job/yaml_text.hpp"

namespace shardrun::job {
namespace {

std::vector<std::string> split_path(const std::string& path)
{
    std::vector<std::string> parts;
    std::stringstream stream(path);
    std::string part;
    while (std::getline(stream, part, '.')) parts.push_back(part);
    return parts;
}

void set_path(YAML::Node node, const std::vector<std::string>& parts, size_t i, const YAML::Node& value)
{
    if (i + 1 == parts.size()) {
        node[parts[i]] = value;
        return;
    }
    if (!node[parts[i]] || !node[parts[i]].IsMap()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    set_path(node[parts[i]], parts, i + 1, value);
}

bool opens_collection(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t");
    return first != std::string_view::npos && (text[first] == '[' || text[first] == '{');
}

// ", an unclosed '['" when the brackets of that kind do not balance (quotes aside: a rough count that
// only adds words to the parser's own message).
std::string unclosed_bracket(std::string_view text)
{
    const auto count = [&](char c) { return std::count(text.begin(), text.end(), c); };
    if (count('[') > count(']')) return ": an unclosed '['";
    if (count('{') > count('}')) return ": an unclosed '{'";
    return "";
}

std::string apply_override(YAML::Node& root, const std::string& assignment)
{
    const auto equals = assignment.find('=');
    const auto key = assignment.substr(0, equals);
    if (equals == std::string::npos || key.empty() || key.front() == '.' || key.back() == '.') {
        SHARDRUN_THROW(UsageError, fmt::format("--set '{}': expected key.path=value", assignment));
    }
    YAML::Node value;
    const auto text = assignment.substr(equals + 1);
    try {
        value = YAML::Load(text);
    } catch (const YAML::Exception& error) {
        // A value that starts a list or a mapping is meant as one: its syntax error is the message, not
        // a check of the section later that sees one long string. Other text (`@host`) stays a string.
        if (opens_collection(text)) {
            SHARDRUN_THROW(UsageError, fmt::format("--set {}: the value '{}' is not valid YAML ({}{}); write a list as "
                                                   "[a, b] and a mapping as {{k: v}} (and quote the whole --set "
                                                   "argument for the shell)",
                                                   key, text, error.msg, unclosed_bracket(text)));
        }
        value = YAML::Node(text);
    }
    if (unclosed_quote(text)) {
        SHARDRUN_THROW(UsageError, fmt::format("--set {}: the value opens a quote that is never closed; close it (and quote the "
                                               "whole --set argument for the shell)",
                                               key));
    }
    set_path(root, split_path(key), 0, value);
    return key;
}

}  // namespace

std::set<std::string> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides)
{
    std::set<std::string> overridden;
    for (const auto& assignment : overrides) overridden.insert(apply_override(root, assignment));
    return overridden;
}

}  // namespace shardrun::job
