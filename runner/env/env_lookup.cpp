#include "runner/env/env_lookup.hpp"

#include <charconv>
#include <cstdlib>

#include "runner/errors.hpp"

namespace shardrun::env {

EnvLookup process_env()
{
    return [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        if (value == nullptr) return std::nullopt;
        return std::string(value);
    };
}

EnvLookup env_from_map(std::map<std::string, std::string> vars)
{
    return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
        const auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

std::optional<long> env_integer(const EnvLookup& env, const std::string& name)
{
    const auto text = env(name);
    if (!text || text->empty()) return std::nullopt;
    long value = 0;
    const char* end = text->data() + text->size();
    const auto [ptr, ec] = std::from_chars(text->data(), end, value);
    if (ec != std::errc() || ptr != end) {
        SHARDRUN_THROW(UsageError, "environment variable " + name + "='" + *text + "' is not an integer");
    }
    return value;
}

}  // namespace shardrun::env
