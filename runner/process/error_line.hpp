#pragma once

#include <string>

namespace shardrun::process {

/**
 * The line of a kept stderr file that most likely says why the program failed: the first
 * line that names an error or exception (Python's `RuntimeError: boom`, a C++ `terminate
 * called ... what(): ...`, `error: ...`), else its last non-blank line; at most 160
 * characters, control characters as spaces. Empty when the file is missing or blank.
 */
std::string first_error_line(const std::string& path);

}  // namespace shardrun::process
