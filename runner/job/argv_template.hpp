#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::job {

/** Placeholders every exec task can use besides its parameters. */
const std::vector<std::string>& builtin_placeholders();

/**
 * The built-in placeholders whose value differs from task to task (task_id, start, end,
 * task_dir, attempt): an exec.mode: worker expands argv and env once per rank, so it cannot use them.
 */
const std::vector<std::string>& per_task_placeholders();

/** The {name} placeholders in `text` ("{{" and "}}" are literal braces). */
std::vector<std::string> placeholders_in(std::string_view text);

/** Lookup of one placeholder's value; nullopt when unknown. */
using PlaceholderLookup = std::function<std::optional<std::string>(std::string_view name)>;

/**
 * Replaces every {name} in `text`. Values are inserted verbatim: argv never passes through
 * a shell, so no quoting is needed or done.
 * @throws std::invalid_argument naming the unknown placeholder
 */
std::string expand_placeholders(std::string_view text, const PlaceholderLookup& lookup);

/** "SHARDRUN_PARAM_" + the name upper-cased, other characters than [A-Z0-9_] made '_'. */
std::string param_env_name(const std::string& name);

}  // namespace shardrun::job
