#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace shardrun::env {

/** Reads one environment variable; tests pass a map instead of the process environment. */
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

/** The real process environment (getenv). */
EnvLookup process_env();

/** A fixed environment, for tests and for `shardrun plan` dry runs. */
EnvLookup env_from_map(std::map<std::string, std::string> vars);

/**
 * Reads `name` as a decimal integer.
 * @throws UsageError naming the variable when it is set but not an integer.
 */
std::optional<long> env_integer(const EnvLookup& env, const std::string& name);

}  // namespace shardrun::env
