#pragma once

#include <string>

namespace shardrun::cli {

/**
 * docs/reference/kinds.md: one section per task kind of this binary (runner/tasks/registry.hpp),
 * each its summary and the table of parameters the job's params: and sweep axes are checked
 * against (parameter, type, default, allowed, description), as `shardrun kinds NAME` prints it.
 */
std::string kinds_page();

}  // namespace shardrun::cli
