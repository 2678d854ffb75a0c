#include "runner/job/auto_device_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "runner/job/yaml_context.hpp"

namespace shardrun::job {
namespace {

constexpr std::string_view allowed_ops = "<, <=, >, >=, ==, !=";
constexpr std::string_view form = "write <param> <op> <number>, joined by 'and' or 'or' (e.g. \"n < 1000 and m < 1000\")";

/** One word of the rule and where it starts. */
struct Token {
    std::string text;
    std::size_t column = 0;
};

bool op_char(char c) { return c == '<' || c == '>' || c == '=' || c == '!'; }

// Words are split at spaces and around operator characters, so "n<1000" reads as "n < 1000".
std::vector<Token> tokens_of(std::string_view text)
{
    std::vector<Token> tokens;
    std::size_t i = 0;
    while (i < text.size()) {
        if (std::isspace(static_cast<unsigned char>(text[i])) != 0) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        const bool is_op = op_char(text[i]);
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) == 0 && op_char(text[i]) == is_op) ++i;
        tokens.push_back({std::string(text.substr(start, i - start)), start});
    }
    return tokens;
}

bool known_op(const std::string& op)
{
    return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
}

std::optional<double> number_of(const std::string& text)
{
    double value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
    return value;
}

CpuComparison comparison_at(const std::vector<Token>& tokens, std::size_t& i, std::size_t text_end,
                            const std::vector<std::string>& known)
{
    const auto missing = [&](std::string_view what) {
        throw CpuRuleError(i < tokens.size() ? tokens[i].column : text_end,
                           fmt::format("expected {} here; {}", what, form));
    };
    if (i >= tokens.size()) missing("a parameter name");
    const auto& name = tokens[i];
    if (std::find(known.begin(), known.end(), name.text) == known.end()) {
        const auto near = job::closest_name(name.text, known);
        const auto hint = near.empty() ? std::string() : fmt::format("did you mean '{}'? ", near);
        throw UnknownRuleParamError(name.column, name.text, fmt::format("'{}' is not a parameter of this job; {}known: {}", name.text, hint,
                                                    known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", "))));
    }
    if (++i >= tokens.size()) missing(fmt::format("an operator ({}) after '{}'", allowed_ops, name.text));
    const auto& op = tokens[i];
    if (!known_op(op.text)) {
        throw CpuRuleError(op.column, fmt::format("'{}' is not an operator; allowed: {}", op.text, allowed_ops));
    }
    if (++i >= tokens.size()) missing(fmt::format("a number after '{} {}'", name.text, op.text));
    const auto& value = tokens[i];
    const auto number = number_of(value.text);
    if (!number) {
        throw CpuRuleError(value.column, fmt::format("'{}' is not a number; a rule compares a parameter with a number "
                                                     "such as 1000, 2.5 or 1e6", value.text));
    }
    ++i;
    return {name.text, op.text, *number};
}

bool compare(double left, const std::string& op, double right)
{
    if (op == "<") return left < right;
    if (op == "<=") return left <= right;
    if (op == ">") return left > right;
    if (op == ">=") return left >= right;
    if (op == "==") return left == right;
    return left != right;
}

}  // namespace

CpuRule parse_cpu_rule(std::string_view text, const std::vector<std::string>& known)
{
    CpuRule rule;
    rule.text = std::string(text);
    const auto tokens = tokens_of(text);
    if (tokens.empty()) throw CpuRuleError(0, fmt::format("is empty; {}", form));
    std::size_t i = 0;
    rule.any_of.emplace_back();
    while (true) {
        rule.any_of.back().push_back(comparison_at(tokens, i, text.size(), known));
        if (i >= tokens.size()) break;
        if (tokens[i].text == "or") {
            rule.any_of.emplace_back();
        } else if (tokens[i].text != "and") {
            throw CpuRuleError(tokens[i].column, fmt::format("'{}' cannot follow a comparison; join comparisons with "
                                                             "'and' or 'or'", tokens[i].text));
        }
        ++i;
    }
    return rule;
}

bool cpu_rule_holds(const CpuRule& rule, const ParamNumber& value)
{
    return std::any_of(rule.any_of.begin(), rule.any_of.end(), [&](const std::vector<CpuComparison>& all) {
        return std::all_of(all.begin(), all.end(), [&](const CpuComparison& c) {
            const auto left = value(c.param);
            return left.has_value() && compare(*left, c.op, c.number);
        });
    });
}

}  // namespace shardrun::job
