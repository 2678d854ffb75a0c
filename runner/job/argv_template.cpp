#include "runner/job/argv_template.hpp"

#include <cctype>
#include <stdexcept>

namespace shardrun::job {
namespace {

// Calls on_text for literal pieces and on_name for each {name}.
template <typename OnText, typename OnName>
void scan(std::string_view text, OnText on_text, OnName on_name)
{
    size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
            on_text(std::string_view(&text[i], 1));
            i += 2;
        } else if (c == '{') {
            const auto close = text.find('}', i);
            if (close == std::string_view::npos) throw std::invalid_argument("unclosed '{' in '" + std::string(text) + "'");
            on_name(text.substr(i + 1, close - i - 1));
            i = close + 1;
        } else {
            on_text(text.substr(i, 1));
            ++i;
        }
    }
}

}  // namespace

const std::vector<std::string>& builtin_placeholders()
{
    static const std::vector<std::string> names = {"task_id", "task_count", "start", "end", "rank",
                                                   "device", "task_dir", "checkpoint_dir", "attempt", "input",
                                                   "input_dataset"};
    return names;
}

const std::vector<std::string>& per_task_placeholders()
{
    static const std::vector<std::string> names = {"task_id", "start", "end", "task_dir", "checkpoint_dir", "attempt"};
    return names;
}

std::vector<std::string> placeholders_in(std::string_view text)
{
    std::vector<std::string> names;
    scan(text, [](std::string_view) {}, [&](std::string_view name) { names.emplace_back(name); });
    return names;
}

std::string expand_placeholders(std::string_view text, const PlaceholderLookup& lookup)
{
    std::string out;
    scan(text, [&](std::string_view piece) { out += piece; },
         [&](std::string_view name) {
             const auto value = lookup(name);
             if (!value) throw std::invalid_argument("unknown placeholder {" + std::string(name) + "}");
             out += *value;
         });
    return out;
}

std::string param_env_name(const std::string& name)
{
    std::string env = "SHARDRUN_PARAM_";
    for (const char c : name) env += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
    return env;
}

}  // namespace shardrun::job
