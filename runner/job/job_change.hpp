#pragma once

#include <optional>
#include <string>

namespace shardrun::job {

/**
 * Whether the resolved job `now` (resolved_json()) only extends `old`: task, params, data and
 * exec equal, the same sweep keys in the same order, and each sweep key equal or a list
 * (`name: [...]`, `points:`, `points_file:`) that keeps every old element (by value, anywhere)
 * and gains some. nullopt when it does; otherwise the first difference in one phrase,
 * "sweep.a differs: old [1,2,3], new [1,3]", naming the key and both values.
 */
std::optional<std::string> job_change(const std::string& old, const std::string& now);

}  // namespace shardrun::job
